package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/config"
	"vaultmcp/internal/httpserver"
	"vaultmcp/internal/oauth"
	"vaultmcp/internal/ratelimit"
	"vaultmcp/vault/access"
)

// web is the HTTP transport, checked and ready before the core is built:
// a configuration that would expose the vault is refused before anything
// is opened.
type web struct {
	cfg      config.HTTP
	auth     *auth.Authenticator
	loopback bool
	stderr   io.Writer
	// authorEmails is git.author_emails: the email of each credential's
	// commits.
	authorEmails map[string]string
}

// newWeb checks the HTTP configuration: who may connect, and with what.
func newWeb(cfg *config.Config, scope *access.Scope, stderr io.Writer) (*web, error) {
	h := cfg.HTTP
	authn, err := auth.New(authOptions(cfg, scope))
	if err != nil {
		return nil, err
	}
	loopback, err := loopbackAddr(h.Addr)
	if err != nil {
		return nil, err
	}
	if err := checkExposure(h, authn, loopback, stderr); err != nil {
		return nil, err
	}
	return &web{cfg: h, auth: authn, loopback: loopback, stderr: stderr, authorEmails: cfg.Git.AuthorEmails}, nil
}

// serve attaches the HTTP transport to the core until ctx ends, then
// finishes the requests in flight before returning (the core's Close,
// deferred by serve, then pushes what is still unpushed).
func (wb *web) serve(ctx context.Context, c *core, s *server.MCPServer) error {
	h := wb.cfg
	var srv *httpserver.Server
	var as httpserver.OAuth
	if h.OAuth.Enabled {
		o, err := oauth.New(oauth.Options{
			Auth:                       wb.auth,
			Base:                       func(r *http.Request) string { return httpserver.BaseURL(h.PublicURL, r) },
			StateFile:                  h.OAuth.StateFile,
			TokenTTL:                   h.OAuth.TokenExpiry,
			GrantLifetime:              h.OAuth.GrantLifetime,
			AllowPrivateClientMetadata: h.OAuth.AllowPrivateClientMetadata,
			RedirectSchemes:            h.OAuth.RedirectSchemes,
			LimitSignIn:                func(w http.ResponseWriter, r *http.Request) bool { return srv.LimitSignIn(w, r) },
			LimitRegister:              func(w http.ResponseWriter, r *http.Request) bool { return srv.LimitRegister(w, r) },
			LimitToken:                 func(w http.ResponseWriter, r *http.Request) bool { return srv.LimitAPI(w, r) },
			Logger:                     c.logger,
		})
		if err != nil {
			return err
		}
		c.logger.Info("OAuth grants are kept in", "state_file", o.StateFile())
		wb.auth.SetOAuth(o)
		as = o
	}
	var auditLog *audit.Log
	if h.AuditLog != "" {
		var err error
		if auditLog, err = audit.Open(h.AuditLog, audit.Options{MaxBytes: h.AuditMaxBytes}); err != nil {
			return err
		}
		defer auditLog.Close()
	}
	srv, err := httpserver.New(httpserver.Options{
		MCP:               s,
		Deps:              c.deps,
		Auth:              wb.auth,
		AuthorEmails:      wb.authorEmails,
		Audit:             auditLog,
		OAuth:             as,
		PublicURL:         h.PublicURL,
		CORSOrigins:       h.CORSOrigins,
		AllowedHosts:      h.AllowedHosts,
		TrustedProxies:    h.TrustedProxies,
		MaxBodyBytes:      h.MaxBodyBytes,
		MaxSessions:       h.MaxSessions,
		Limits:            limits(h),
		ReadHeaderTimeout: h.ReadHeaderTimeout,
		ReadTimeout:       h.ReadTimeout,
		WriteTimeout:      h.WriteTimeout,
		IdleTimeout:       h.IdleTimeout,
		ShutdownTimeout:   h.ShutdownTimeout,
		TLSCert:           h.TLSCert,
		TLSKey:            h.TLSKey,
		Version:           version,
		Logger:            c.logger,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", h.Addr)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	defer ln.Close()
	if httpserver.IsLoopback(ln.Addr()) != wb.loopback {
		return fmt.Errorf("http: %s was checked as loopback=%v but listens on %s", h.Addr, wb.loopback, ln.Addr())
	}
	scheme := "http"
	if h.TLSCert != "" {
		scheme = "https"
	}
	if wb.loopback && strings.HasPrefix(h.PublicURL, "https://") && len(h.TrustedProxies) == 0 {
		// On loopback with a public https name, a proxy sits in front:
		// without its address every caller seems to be the proxy, and the
		// per-address limits are shared by everyone.
		c.logger.Warn("http.public_url is https on a loopback address, so a proxy is in front, but http.trusted_proxies is empty: "+
			"every request seems to come from the proxy and shares one rate limit; set http.trusted_proxies to the proxy's address (e.g. [127.0.0.1])",
			"public_url", h.PublicURL)
	}
	c.logger.Info("serving over HTTP", "url", scheme+"://"+ln.Addr().String()+"/mcp", "vault", c.vault.Root(),
		"version", version, "auth", h.Auth, "oauth", h.OAuth.Enabled, "loopback", wb.loopback)
	err = srv.Serve(ctx, ln)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// loopbackAddr reports whether a listen address is on loopback only: a
// loopback IP, or a name (localhost) that resolves only to such. An empty
// host (":8000") listens everywhere.
func loopbackAddr(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("http.addr %q: %w (want host:port, e.g. 127.0.0.1:8000)", addr, err)
	}
	if host == "" {
		return false, nil
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback(), nil
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false, fmt.Errorf("http.addr %q: cannot resolve %s: %v", addr, host, err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false, nil
		}
	}
	return true, nil
}

// authOptions maps the configuration onto package auth.
func authOptions(cfg *config.Config, scope *access.Scope) auth.Options {
	h := cfg.HTTP
	o := auth.Options{
		JWTExpiry: h.JWTExpiry,
		Issuer:    h.JWTIssuer,
		Audience:  h.JWTAudience,
		Server:    scope,
		Anonymous: h.Auth == "none",
	}
	for i, sec := range h.JWTSecret {
		if i == 0 {
			o.JWTSecret = []byte(sec)
		} else {
			o.JWTOldSecrets = append(o.JWTOldSecrets, []byte(sec))
		}
	}
	for _, t := range h.Tokens {
		o.Tokens = append(o.Tokens, auth.Token{Name: t.Name, Hash: t.Hash, Rules: access.Rules{ReadOnly: t.ReadOnly, Allow: t.Allow, Deny: t.Deny}})
	}
	for _, u := range h.Users {
		o.Users = append(o.Users, auth.User{Name: u.Name, PasswordHash: u.PasswordHash, Rules: access.Rules{ReadOnly: u.ReadOnly, Allow: u.Allow, Deny: u.Deny}})
	}
	return o
}

// limits are the rate limits, with the configured one of /mcp.
func limits(h config.HTTP) *httpserver.Limits {
	l := httpserver.DefaultLimits
	l.MCP = ratelimit.Rule{}
	if h.MCPRateLimit > 0 {
		l.MCP = httpserver.MCPRule(h.MCPRateLimit)
	}
	return &l
}

// checkExposure enforces who may reach the server: without
// authentication only on loopback; with authentication required but no
// credential configured, a token made for this run on loopback (printed on
// stderr) and a refusal to start anywhere else. Off loopback it also
// requires TLS (or a proxy in front that terminates it) and a known
// public name.
func checkExposure(h config.HTTP, authn *auth.Authenticator, loopback bool, stderr io.Writer) error {
	if err := checkExposureAuth(h, authn, loopback, stderr); err != nil {
		return err
	}
	if loopback {
		return nil
	}
	if h.TLSCert == "" && !h.AllowPlaintext {
		return fmt.Errorf("%s is not a loopback address and the server would speak plain HTTP there, so tokens and passwords would cross the network in clear: "+
			"set http.tls_cert and http.tls_key, or, when a reverse proxy in front terminates TLS, set http.allow_plaintext: true "+
			"(better still: listen on 127.0.0.1 behind the proxy)", h.Addr)
	}
	if h.PublicURL == "" && len(h.AllowedHosts) == 0 {
		return fmt.Errorf("%s is not a loopback address and neither http.public_url nor http.allowed_hosts is set, so any Host header a client sends "+
			"would be taken as the server's name (in the OAuth metadata and WWW-Authenticate): set http.public_url to the address clients use "+
			"(e.g. https://vault.example.com), or list the names in http.allowed_hosts", h.Addr)
	}
	return nil
}

func checkExposureAuth(h config.HTTP, authn *auth.Authenticator, loopback bool, stderr io.Writer) error {
	if h.Auth == "none" {
		if !loopback {
			return fmt.Errorf("http.auth is none, which is allowed only on a loopback address (127.0.0.1, [::1], localhost), not %s: "+
				"configure credentials (http.tokens, http.users) and set http.auth: required", h.Addr)
		}
		fmt.Fprintln(stderr, "vaultmcp: WARNING: http.auth is none: anything on this machine can use the vault without a credential")
		return nil
	}
	if authn.HasCredentials() {
		return nil
	}
	if !loopback {
		return fmt.Errorf("no credential is configured for %s, which is not a loopback address, so the server would be open to anyone who reaches it: "+
			"add a token (vaultmcp token create NAME, then http.tokens) or users (vaultmcp hash-password, then http.users), "+
			"or listen on 127.0.0.1", h.Addr)
	}
	tok, hash, err := auth.NewToken()
	if err != nil {
		return err
	}
	if err := authn.AddToken(auth.Token{Name: "generated", Hash: hash}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vaultmcp: no credential is configured; this token is valid until the server stops:\n"+
		"vaultmcp:   Authorization: Bearer %s\n"+
		"vaultmcp: (configure http.tokens with vaultmcp token create NAME to keep one)\n", tok)
	return nil
}
