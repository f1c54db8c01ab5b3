// Package httpserver is vaultmcp's HTTP transport: one net/http server
// offering, on one port,
//
//   - /mcp: MCP over streamable HTTP (mcp-go): sessions bound to the
//     identity that opened them, DELETE to end one, an SSE stream per
//     session for server-to-client notifications;
//   - /health: status and version, without authentication;
//   - /api/*: the REST API for scripts and n8n (POST /api/auth/login,
//     the concept endpoints, /api/notes/{path}), answering JSON with
//     {"detail": "…"} errors; its handlers call the same typed functions
//     as the MCP tools;
//   - the OAuth 2.1 endpoints and metadata (RFC 9728 protected resource
//     metadata at /.well-known/oauth-protected-resource and
//     /.well-known/oauth-protected-resource/mcp), when configured.
//
// Every request passes the same chain, outermost first: panic recovery;
// the audit record; DNS-rebinding protection (Host against the allowed
// hosts when bound to loopback or when hosts are listed, Origin against
// the request's own origin and the CORS list); CORS (off unless origins
// are listed; preflights from other origins refused); authentication for
// /mcp and /api/* (401 with WWW-Authenticate naming the resource
// metadata), which puts the caller's identity and access scope into the
// request context; the rate limits (429 with X-RateLimit-* headers); and
// only then the body, read as the handler reads it, under the limit
// (413). Routes open without a credential (login, OAuth, metadata) cap
// the requests one address has in flight and read at most
// PublicBodyBytes. Nothing below the transport sees a credential: tools
// receive only the scope.
//
// Serve runs until its context ends, then shuts down gracefully: it stops
// accepting, ends the SSE streams, and waits (bounded) for requests in
// flight to finish; the caller then closes the core, which pushes what is
// still unpushed.
package httpserver

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/idempotency"
	"vaultmcp/internal/ratelimit"
	"vaultmcp/tools"
	"vaultmcp/vault/bases/indexsource"
)

// Name is the server name /health reports.
const Name = "vaultmcp"

// Limits are the rate limits per caller (per identity when
// authenticated, per IP address otherwise).
type Limits struct {
	Login ratelimit.Rule // POST /api/auth/login, per IP
	// SignIn limits password checks on the OAuth sign-in page, per IP;
	// the page also backs off per user name.
	SignIn ratelimit.Rule
	Health ratelimit.Rule // GET /health, per IP
	API    ratelimit.Rule // every other /api/* endpoint
	// Register limits new OAuth clients (registrations and metadata
	// documents fetched), per IP.
	Register ratelimit.Rule
	// MCP limits /mcp per credential; zero PerMinute means no limit.
	MCP ratelimit.Rule
}

// DefaultLimits are the documented limits. The one of /mcp is generous,
// far above what an assistant's calls come to, so it only stops a
// runaway or abusive client.
var DefaultLimits = Limits{
	Login:    ratelimit.Rule{PerMinute: 5, Burst: 2},
	SignIn:   ratelimit.Rule{PerMinute: 10, Burst: 5},
	Health:   ratelimit.Rule{PerMinute: 100, Burst: 20},
	API:      ratelimit.Rule{PerMinute: 60, Burst: 10},
	Register: ratelimit.Rule{PerMinute: 2, Burst: 10},
	MCP:      MCPRule(DefaultMCPPerMinute),
}

// DefaultMCPPerMinute is the default limit of /mcp calls a minute per
// credential (http.mcp_rate_limit).
const DefaultMCPPerMinute = 1200

// MCPRule is the /mcp limit for perMinute calls a minute: a quarter of
// them may come at once.
func MCPRule(perMinute int) ratelimit.Rule {
	return ratelimit.Rule{PerMinute: perMinute, Burst: max(1, perMinute/4)}
}

// PublicBodyBytes caps the bodies of the routes open without a
// credential (login, OAuth), whatever MaxBodyBytes says: their requests
// are small, and nobody is accountable for them.
const PublicBodyBytes = 64 << 10

// OAuth is the OAuth side the server mounts: an authorization server's
// endpoints (nil handler for an external one) and the issuer to name in
// the protected resource metadata.
type OAuth interface {
	// Issuer returns the authorization server's issuer identifier for a
	// request to this server (the built-in one's depends on the address
	// the client used).
	Issuer(r *http.Request) string
	// Handler serves the authorization server's endpoints, or is nil.
	Handler() http.Handler
	// Paths are the paths Handler serves (exact, or prefixes ending in /).
	Paths() []string
	// ScopesSupported are the scopes the protected resource metadata
	// names.
	ScopesSupported() []string
}

// Options configure a Server.
type Options struct {
	// MCP is the assembled MCP server.
	MCP *server.MCPServer
	// Deps are what the REST API's handlers work on.
	Deps tools.Deps
	// Auth checks credentials.
	Auth *auth.Authenticator
	// AuthorEmails maps credential names to the email of the commits
	// they make; others are name@vaultmcp.invalid (see commitAuthor).
	AuthorEmails map[string]string
	// Audit gets one entry per authenticated call; nil for none.
	Audit *audit.Log
	// OAuth, when set, is mounted and named in the resource metadata.
	OAuth OAuth
	// PublicURL is the server's base URL as clients reach it; empty means
	// the scheme and Host of each request.
	PublicURL string
	// CORSOrigins are the origins allowed cross-origin; none = CORS off.
	CORSOrigins []string
	// AllowedHosts are Host values accepted besides the loopback names.
	AllowedHosts []string
	// TrustedProxies are the addresses (IPs or CIDRs) of reverse proxies
	// whose X-Forwarded-For names the client.
	TrustedProxies []string
	// MaxBodyBytes caps the request bodies of authenticated callers
	// (4 MiB when 0); PublicBodyBytes caps the others.
	MaxBodyBytes int64
	// AnonymousInFlight caps the requests one address (IPv6: one /64)
	// may have in progress on the routes open without a credential
	// (16 when 0).
	AnonymousInFlight int
	// MaxSessions caps the MCP sessions of one credential; opening one
	// more ends its least recently used session (100 when 0).
	MaxSessions int
	// Timeouts of the net/http server; zero values get defaults.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds the wait for requests in flight at shutdown.
	ShutdownTimeout time.Duration
	// TLSCert and TLSKey serve HTTPS when set.
	TLSCert, TLSKey string
	// Limits are the rate limits; zero value means DefaultLimits.
	Limits *Limits
	// IndexWait bounds how long an endpoint that needs the index waits
	// for its first build before answering 503 (10 s when 0).
	IndexWait time.Duration
	// Version is reported by /health.
	Version string
	// Logger gets the server's own log; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Server is the HTTP transport. Create it with New; Serve runs it.
type Server struct {
	opts        Options
	log         *slog.Logger
	mcp         *server.StreamableHTTPServer
	sessions    *sessions
	handler     http.Handler
	loopback    bool // set by Serve: the listener is on a loopback address
	hosts       map[string]bool
	origins     map[string]bool
	proxies     []*net.IPNet
	public      *url.URL
	limLogin    *ratelimit.Limiter
	limSignIn   *ratelimit.Limiter
	limRegister *ratelimit.Limiter
	limHealth   *ratelimit.Limiter
	limAPI      *ratelimit.Limiter
	limMCP      *ratelimit.Limiter
	maxBody     int64
	anon        *inFlight
	httpServer  *http.Server
}

// New builds a Server. Call Serve with a listener to run it.
func New(opts Options) (*Server, error) {
	if opts.MCP == nil || opts.Auth == nil {
		return nil, errors.New("httpserver: MCP and Auth are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Deps.Bases == nil && opts.Deps.Index != nil && opts.Deps.Vault != nil {
		// Kept across requests, as tools.All keeps its own.
		opts.Deps.Bases = indexsource.New(opts.Deps.Index, opts.Deps.Vault.Root(), nil)
	}
	if opts.Deps.Idempotency == nil {
		opts.Deps.Idempotency = &idempotency.Store{} // in memory only
	}
	lim := DefaultLimits
	if opts.Limits != nil {
		lim = *opts.Limits
	}
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		sessions: newSessions(24*time.Hour, cmp.Or(max(opts.MaxSessions, 0), 100)),
		hosts:    map[string]bool{},
		origins:  map[string]bool{},
		maxBody:  opts.MaxBodyBytes,
		anon:     &inFlight{max: cmp.Or(max(opts.AnonymousInFlight, 0), 16), n: map[string]int{}},
	}
	if s.maxBody <= 0 {
		s.maxBody = 4 << 20
	}
	s.sessions.now = opts.Now
	s.sessions.evict = s.endSession
	if opts.PublicURL != "" {
		u, err := url.Parse(strings.TrimSuffix(opts.PublicURL, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("httpserver: public URL %q must be an absolute http(s) URL", opts.PublicURL)
		}
		s.public = u
		s.hosts[strings.ToLower(u.Host)] = true
		s.hosts[strings.ToLower(u.Hostname())] = true
		s.origins[u.Scheme+"://"+strings.ToLower(u.Host)] = true
	}
	for _, h := range opts.AllowedHosts {
		s.hosts[strings.ToLower(strings.TrimSpace(h))] = true
	}
	for _, o := range opts.CORSOrigins {
		s.origins[strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))] = true
	}
	for _, p := range opts.TrustedProxies {
		n, err := parseNet(p)
		if err != nil {
			return nil, fmt.Errorf("httpserver: trusted proxy %q: %w", p, err)
		}
		s.proxies = append(s.proxies, n)
	}
	s.limLogin = ratelimit.New(lim.Login, opts.Now)
	s.limSignIn = ratelimit.New(lim.SignIn, opts.Now)
	s.limHealth = ratelimit.New(lim.Health, opts.Now)
	s.limAPI = ratelimit.New(lim.API, opts.Now)
	s.limRegister = ratelimit.New(lim.Register, opts.Now)
	if lim.MCP.PerMinute > 0 {
		s.limMCP = ratelimit.New(lim.MCP, opts.Now)
	}
	s.mcp = server.NewStreamableHTTPServer(opts.MCP,
		server.WithEndpointPath("/mcp"),
		server.WithSessionIdManagerResolver(s.sessions),
		// Host and Origin are checked for every route by this package,
		// against the configured hosts as well.
		server.WithDisableLocalhostProtection(true),
		// Keeps notification streams open through proxies that close
		// silent connections.
		server.WithHeartbeatInterval(30*time.Second),
		server.WithSessionIdleTTL(24*time.Hour),
		server.WithStreamableHTTPLogger(opts.Logger),
	)
	s.handler = s.routes()
	return s, nil
}

func parseNet(s string) (*net.IPNet, error) {
	if !strings.Contains(s, "/") {
		ip := net.ParseIP(strings.TrimSpace(s))
		if ip == nil {
			return nil, errors.New("not an IP address or CIDR")
		}
		bits := 32
		if ip.To4() == nil {
			bits = 128
		}
		return &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}, nil
	}
	_, n, err := net.ParseCIDR(strings.TrimSpace(s))
	return n, err
}

// Handler is the server's whole HTTP handler (tests drive it directly).
func (s *Server) Handler() http.Handler { return s.handler }

// SetLoopback tells a Server driven through Handler (without Serve)
// whether it is bound to loopback, which turns the Host check on.
func (s *Server) SetLoopback(loopback bool) { s.loopback = loopback }

// IsLoopback reports whether a listen address is on a loopback interface
// only. A host name is resolved (localhost); ":8000" and 0.0.0.0 are not.
func IsLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP != nil && tcp.IP.IsLoopback()
}

// Serve answers on ln until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.loopback = IsLoopback(ln.Addr())
	o := s.opts
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: orDefault(o.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       orDefault(o.ReadTimeout, 60*time.Second),
		WriteTimeout:      orDefault(o.WriteTimeout, 120*time.Second),
		IdleTimeout:       orDefault(o.IdleTimeout, 120*time.Second),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.httpServer = srv
	// Notification streams never end on their own: end them when the
	// shutdown starts, so it waits only for real requests.
	srv.RegisterOnShutdown(func() { s.mcp.CloseSessions(context.Background()) })
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return fmt.Errorf("TLS: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), orDefault(o.ShutdownTimeout, 30*time.Second))
	defer cancel()
	err := srv.Shutdown(sctx)
	<-errc
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.New("shutdown: requests still running after the shutdown timeout were cut off")
	}
	return err
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// BaseURL is the server's base URL as a client reaches it: publicURL
// when configured, else the request's own scheme and Host.
func BaseURL(publicURL string, r *http.Request) string {
	if publicURL != "" {
		return strings.TrimSuffix(publicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) baseURL(r *http.Request) string { return BaseURL(s.opts.PublicURL, r) }

// LimitSignIn applies the OAuth sign-in page's rate limit (per IP) to
// r, answering 429 itself and returning false when it is exceeded.
func (s *Server) LimitSignIn(w http.ResponseWriter, r *http.Request) bool {
	return s.allow(w, s.limSignIn, ipKey(s.clientIP(r)))
}

// LimitRegister applies the limit on new OAuth clients per IP to r, as
// LimitSignIn does.
func (s *Server) LimitRegister(w http.ResponseWriter, r *http.Request) bool {
	return s.allow(w, s.limRegister, "ip:"+s.clientIP(r))
}

// LimitAPI applies the API rate limit per IP to r, as LimitSignIn does;
// the OAuth token and revocation endpoints use it.
func (s *Server) LimitAPI(w http.ResponseWriter, r *http.Request) bool {
	return s.allow(w, s.limAPI, ipKey(s.clientIP(r)))
}

// ResourceURL is the OAuth resource identifier of /mcp for a request.
func (s *Server) resourceURL(r *http.Request) string { return s.baseURL(r) + "/mcp" }

// metadataURL is the path-qualified protected resource metadata URL.
func (s *Server) metadataURL(r *http.Request) string {
	return s.baseURL(r) + "/.well-known/oauth-protected-resource/mcp"
}
