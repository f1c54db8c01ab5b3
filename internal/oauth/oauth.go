// Package oauth is vaultmcp's small built-in OAuth 2.1 authorization
// server, for MCP clients that discover authentication (Claude's custom
// connectors, MCP Inspector) per the MCP authorization spec. It is built
// on go-oauth2/oauth2, which does the protocol work (authorization codes,
// PKCE verification, token issue, refresh with rotation, expiry, client
// authentication, error responses); this package adds what that library
// leaves to its user:
//
//   - RFC 8414 metadata at /.well-known/oauth-authorization-server;
//   - RFC 7591 dynamic client registration at /oauth/register (public
//     clients with PKCE, or confidential ones with a generated secret),
//     with exact matching of the registered redirect URIs;
//   - the sign-in page at /oauth/authorize, where one of the configured
//     users signs in with their password; an authorization request is
//     checked (client, redirect URI, PKCE S256, resource) before the page
//     is shown, so a forged link never reaches the sign-in form;
//   - audience binding (RFC 8707): every grant records this server's MCP
//     endpoint (the resource the client names, which must be ours), and
//     a token is accepted only for requests to that resource.
//
// Tokens are opaque and live in memory: a restart ends every grant, and
// clients register and sign in again. The server never passes a token on
// to anything else.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/go-oauth2/oauth2/v4/store"

	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
)

// Scope is the one scope the server offers: the vault, under the signed-in
// user's access rules. offline_access asks for a refresh token (which is
// given either way).
const (
	Scope         = "vault"
	OfflineAccess = "offline_access"
)

// The endpoints' paths.
const (
	MetadataPath  = "/.well-known/oauth-authorization-server"
	RegisterPath  = "/oauth/register"
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token"
)

// maxClients bounds dynamic registrations kept in memory.
const maxClients = 1000

// resourceKey is where a grant keeps the resource it is for.
const resourceKey = "resource"

// Options configure a Server.
type Options struct {
	// Auth checks the users' passwords.
	Auth *auth.Authenticator
	// Base returns the server's public base URL for a request; the
	// issuer is Base and the resource Base + "/mcp".
	Base func(r *http.Request) string
	// TokenTTL is an access token's lifetime (one hour when 0).
	TokenTTL time.Duration
	// LimitLogin and LimitRegister, when set, are asked before each
	// password check and each registration; they answer the request
	// themselves (429) and return false to stop it.
	LimitLogin, LimitRegister func(w http.ResponseWriter, r *http.Request) bool
	// Logger gets unexpected failures; nil means slog.Default().
	Logger *slog.Logger
}

// Server is the authorization server. It implements auth.Verifier.
type Server struct {
	opts    Options
	manager *manage.Manager
	srv     *server.Server
	clients *clientStore
	mux     *http.ServeMux
	log     *slog.Logger
}

var _ auth.Verifier = (*Server)(nil)

type userKey struct{}

// New builds the authorization server.
func New(opts Options) (*Server, error) {
	if opts.Auth == nil || opts.Base == nil {
		return nil, errors.New("oauth: Auth and Base are required")
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = time.Hour
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	tokens, err := store.NewMemoryTokenStore()
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	s := &Server{opts: opts, clients: &clientStore{byID: map[string]*client{}}, log: opts.Logger}

	m := manage.NewDefaultManager()
	// Every grant gets a refresh token (MCP clients do not always ask for
	// offline_access, and a connector that must sign in again every hour
	// is no use); a refresh replaces both tokens, as OAuth 2.1 asks for
	// public clients.
	refresh := 30 * 24 * time.Hour
	m.SetAuthorizeCodeExp(5 * time.Minute)
	m.SetAuthorizeCodeTokenCfg(&manage.Config{AccessTokenExp: opts.TokenTTL, RefreshTokenExp: refresh, IsGenerateRefresh: true})
	m.SetRefreshTokenCfg(&manage.RefreshingConfig{AccessTokenExp: opts.TokenTTL, RefreshTokenExp: refresh,
		IsGenerateRefresh: true, IsResetRefreshTime: true, IsRemoveAccess: true, IsRemoveRefreshing: true})
	m.MapTokenStorage(tokens)
	m.MapClientStorage(s.clients)
	m.SetValidateURIHandler(registeredRedirect)
	// The grant remembers its resource: the code takes it from the
	// authorization request, the tokens from the code.
	m.SetExtractExtensionHandler(func(tgr *oauth2.TokenGenerateRequest, ti oauth2.ExtendableTokenInfo) {
		if ext := ti.GetExtension(); ext.Get(resourceKey) == "" && tgr.Request != nil {
			ext.Set(resourceKey, s.resource(tgr.Request))
		}
	})
	s.manager = m

	cfg := server.NewConfig()
	cfg.AllowedResponseTypes = []oauth2.ResponseType{oauth2.Code}
	cfg.AllowedGrantTypes = []oauth2.GrantType{oauth2.AuthorizationCode, oauth2.Refreshing}
	cfg.AllowedCodeChallengeMethods = []oauth2.CodeChallengeMethod{oauth2.CodeChallengeS256}
	cfg.ForcePKCE = true
	srv := server.NewServer(cfg, m)
	srv.SetClientInfoHandler(clientCredentials)
	// The sign-in happened before the library is called (see authorize).
	srv.SetUserAuthorizationHandler(func(_ http.ResponseWriter, r *http.Request) (string, error) {
		user, _ := r.Context().Value(userKey{}).(string)
		if user == "" {
			return "", oerrors.ErrAccessDenied
		}
		return user, nil
	})
	// RFC 6749 answers every token error but a failed client
	// authentication with 400; the library says 401 for some.
	srv.SetResponseErrorHandler(func(re *oerrors.Response) {
		if re.Error != oerrors.ErrInvalidClient && re.StatusCode == http.StatusUnauthorized {
			re.StatusCode = http.StatusBadRequest
		}
	})
	srv.SetInternalErrorHandler(func(err error) *oerrors.Response {
		s.log.Error("oauth: internal error", "err", err)
		return nil
	})
	s.srv = srv

	mux := http.NewServeMux()
	mux.HandleFunc(MetadataPath, s.metadata)
	mux.HandleFunc(RegisterPath, s.register)
	mux.HandleFunc(AuthorizePath, s.authorize)
	mux.HandleFunc(TokenPath, s.token)
	s.mux = mux
	return s, nil
}

// Handler serves the authorization server's endpoints.
func (s *Server) Handler() http.Handler { return s.mux }

// Paths are the paths Handler serves.
func (s *Server) Paths() []string {
	return []string{MetadataPath, RegisterPath, AuthorizePath, TokenPath}
}

// Issuer is the authorization server's issuer for a request: the public
// base URL.
func (s *Server) Issuer(r *http.Request) string { return s.opts.Base(r) }

func (s *Server) resource(r *http.Request) string { return s.opts.Base(r) + "/mcp" }

// VerifyAccessToken checks an access token issued here: known, not
// expired or replaced by a refresh, and granted for the resource the
// request is for. A refresh token is not an access token.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (string, error) {
	ti, err := s.manager.LoadAccessToken(ctx, token)
	if err != nil {
		return "", err
	}
	ext, ok := ti.(oauth2.ExtendableTokenInfo)
	resource := auth.ResourceFrom(ctx)
	if !ok || resource == "" || ext.GetExtension().Get(resourceKey) != resource {
		return "", errors.New("oauth: the token was not issued for this resource")
	}
	if ti.GetUserID() == "" {
		return "", errors.New("oauth: the token names no user")
	}
	return ti.GetUserID(), nil
}

// metadata serves RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use GET")
		return
	}
	base := s.opts.Base(r)
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                base,
		"authorization_endpoint":                base + AuthorizePath,
		"token_endpoint":                        base + TokenPath,
		"registration_endpoint":                 base + RegisterPath,
		"response_types_supported":              []string{"code"},
		"response_modes_supported":              []string{"query"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_post", "client_secret_basic"},
		"scopes_supported":                      []string{Scope, OfflineAccess},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers with an OAuth error body.
func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// registration is an RFC 7591 client registration request and response.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`

	ClientID              string `json:"client_id,omitempty"`
	ClientSecret          string `json:"client_secret,omitempty"`
	ClientIDIssuedAt      int64  `json:"client_id_issued_at,omitempty"`
	ClientSecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
}

// register is dynamic client registration.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use POST")
		return
	}
	if s.opts.LimitRegister != nil && !s.opts.LimitRegister(w, r) {
		return
	}
	var req registration
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON client registration")
		return
	}
	if len(req.RedirectURIs) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range req.RedirectURIs {
		if err := checkRedirect(u); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_redirect_uri", err.Error())
			return
		}
	}
	method := req.TokenEndpointAuthMethod
	switch method {
	case "":
		method = "none"
	case "none", "client_secret_post", "client_secret_basic":
	default:
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic")
		return
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			writeError(w, http.StatusBadRequest, "invalid_client_metadata", "grant_types may hold authorization_code and refresh_token only")
			return
		}
	}
	for _, rt := range req.ResponseTypes {
		if rt != "code" {
			writeError(w, http.StatusBadRequest, "invalid_client_metadata", "response_types may hold code only")
			return
		}
	}
	id, err := randomHex(16)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "could not make a client id")
		return
	}
	c := &client{id: id, name: req.ClientName, redirects: req.RedirectURIs}
	resp := req
	if method != "none" {
		secret, err := randomHex(32)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "server_error", "could not make a client secret")
			return
		}
		sum := sha256.Sum256([]byte(secret))
		c.secretHash = sum[:]
		resp.ClientSecret = secret
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	if !s.clients.add(c) {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many registered clients; restart the server to clear them")
		return
	}
	resp.ClientID = id
	resp.ClientIDIssuedAt = time.Now().Unix()
	resp.TokenEndpointAuthMethod = method
	resp.GrantTypes = []string{"authorization_code", "refresh_token"}
	resp.ResponseTypes = []string{"code"}
	resp.Scope = Scope + " " + OfflineAccess
	writeJSON(w, http.StatusCreated, resp)
}

// checkRedirect accepts https URLs, http only to loopback, and a native
// app's own scheme; never javascript:, data: or a fragment.
func checkRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("redirect URI %q is not an absolute URL", raw)
	}
	if u.Fragment != "" {
		return fmt.Errorf("redirect URI %q must not have a fragment", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		switch strings.ToLower(u.Hostname()) {
		case "localhost", "127.0.0.1", "::1":
		default:
			return fmt.Errorf("redirect URI %q: plain http is allowed only to localhost", raw)
		}
	case "javascript", "data", "file", "vbscript":
		return fmt.Errorf("redirect URI %q: scheme %s is not allowed", raw, u.Scheme)
	}
	return nil
}

// registeredRedirect is the library's redirect check: the URI must be one
// the client registered, exactly. (A client's "domain" holds its list.)
func registeredRedirect(domain, redirect string) error {
	if slices.Contains(strings.Split(domain, "\n"), redirect) {
		return nil
	}
	return oerrors.ErrInvalidRedirectURI
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// authorize checks an authorization request, then shows the sign-in page
// (GET) or, when a configured user signs in (POST), grants the code.
// Nothing is sent to a redirect URI before the client and the URI are
// known good.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use GET or POST")
		return
	}
	if err := r.ParseForm(); err != nil {
		invalidLink(w, "the request could not be read")
		return
	}
	q := r.Form
	c, ok := s.clients.get(q.Get("client_id"))
	if !ok {
		invalidLink(w, "the application is not registered here (it may have registered before the server restarted; connect it again)")
		return
	}
	redirect := q.Get("redirect_uri")
	if !slices.Contains(c.redirects, redirect) {
		invalidLink(w, "the return address is not one the application registered")
		return
	}
	fail := func(code, desc string) {
		u, _ := url.Parse(redirect)
		v := u.Query()
		v.Set("error", code)
		v.Set("error_description", desc)
		if st := q.Get("state"); st != "" {
			v.Set("state", st)
		}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with code_challenge_method=S256 is required")
		return
	}
	resource := s.resource(r)
	if want := q["resource"]; len(want) > 0 && (len(want) != 1 || strings.TrimSuffix(want[0], "/") != resource) {
		fail("invalid_target", "the resource must be this server's MCP endpoint, "+resource)
		return
	}
	page := loginPage{Client: c.displayName(), Redirect: redirectHost(redirect), Params: hiddenParams(q)}
	if r.Method == http.MethodGet {
		page.render(w, http.StatusOK)
		return
	}
	if s.opts.LimitLogin != nil && !s.opts.LimitLogin(w, r) {
		return
	}
	user := r.PostForm.Get("username")
	if rec := audit.From(r.Context()); rec != nil {
		rec.SetIdentity("oauth-login:" + user)
	}
	if !s.opts.Auth.CheckPassword(user, r.PostForm.Get("password")) {
		page.Error = "Wrong user name or password."
		page.User = user
		page.render(w, http.StatusUnauthorized)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), userKey{}, user))
	if err := s.srv.HandleAuthorizeRequest(w, r); err != nil {
		s.log.Warn("oauth: authorization failed", "err", err)
		fail("server_error", "the authorization could not be completed")
	}
}

// invalidLink answers an authorization request that cannot be sent back
// to the client.
func invalidLink(w http.ResponseWriter, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, "This sign-in link is not valid: %s.\n", why)
}

// token is the token endpoint: codes and refresh tokens for access tokens.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the request could not be read")
		return
	}
	if want := r.PostForm["resource"]; len(want) > 0 && (len(want) != 1 || strings.TrimSuffix(want[0], "/") != s.resource(r)) {
		writeError(w, http.StatusBadRequest, "invalid_target", "the resource must be this server's MCP endpoint")
		return
	}
	if err := s.srv.HandleTokenRequest(w, r); err != nil {
		s.log.Warn("oauth: token request failed", "err", err)
	}
}

// clientCredentials reads the client's id and secret from HTTP basic
// authentication or the form; public clients send only the id.
func clientCredentials(r *http.Request) (string, string, error) {
	if id, secret, ok := r.BasicAuth(); ok {
		return id, secret, nil
	}
	id := r.PostForm.Get("client_id")
	if id == "" {
		return "", "", oerrors.ErrInvalidClient
	}
	return id, r.PostForm.Get("client_secret"), nil
}

// client is a registered client.
type client struct {
	id         string
	name       string
	redirects  []string
	secretHash []byte // SHA-256 of the secret; nil for a public client
}

var (
	_ oauth2.ClientInfo             = (*client)(nil)
	_ oauth2.ClientPasswordVerifier = (*client)(nil)
)

func (c *client) GetID() string     { return c.id }
func (c *client) GetSecret() string { return "" }
func (c *client) GetDomain() string { return strings.Join(c.redirects, "\n") }
func (c *client) IsPublic() bool    { return c.secretHash == nil }
func (c *client) GetUserID() string { return "" }

// VerifyPassword checks the client secret: none for a public client, the
// registered one (compared in constant time) for a confidential one.
func (c *client) VerifyPassword(secret string) bool {
	if c.secretHash == nil {
		return secret == ""
	}
	sum := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(sum[:], c.secretHash) == 1
}

func (c *client) displayName() string {
	if c.name == "" {
		return "An application"
	}
	return c.name
}

// clientStore holds the registered clients, safe to add to while serving.
type clientStore struct {
	mu   sync.RWMutex
	byID map[string]*client
}

var _ oauth2.ClientStore = (*clientStore)(nil)

// GetByID is the library's client lookup.
func (cs *clientStore) GetByID(_ context.Context, id string) (oauth2.ClientInfo, error) {
	c, ok := cs.get(id)
	if !ok {
		return nil, oerrors.ErrInvalidClient
	}
	return c, nil
}

func (cs *clientStore) get(id string) (*client, bool) {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	c, ok := cs.byID[id]
	return c, ok
}

func (cs *clientStore) add(c *client) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.byID) >= maxClients {
		return false
	}
	cs.byID[c.id] = c
	return true
}

// loginPage is the sign-in form.
type loginPage struct {
	Client, Redirect, User, Error string
	Params                        map[string]string
}

func (p loginPage) render(w http.ResponseWriter, status int) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = loginTemplate().Execute(w, p)
}

// hiddenParams carries the authorization request through the form.
func hiddenParams(form url.Values) map[string]string {
	out := map[string]string{}
	for k, v := range form {
		if k == "username" || k == "password" || len(v) == 0 {
			continue
		}
		out[k] = v[0]
	}
	return out
}

func redirectHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

// loginTemplate is parsed by the first sign-in page served, not at every
// start (stdio sessions never serve one).
var loginTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("login").Parse(loginHTML)) })

const loginHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to vaultmcp</title>
<style>
body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1.2rem;padding:.5rem 1.2rem}.error{color:#a00}.small{color:#666;font-size:.9rem}
</style></head><body>
<h1>Sign in to your vault</h1>
<p><strong>{{.Client}}</strong> asks to use your Obsidian vault through vaultmcp.</p>
<p class="small">After you sign in you return to {{.Redirect}}. It gets what your account may see and change, nothing more.</p>
{{if .Error}}<p class="error">{{.Error}}</p>{{end}}
<form method="post">
{{range $k, $v := .Params}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<label for="username">User name</label><input type="text" id="username" name="username" value="{{.User}}" autocomplete="username" required autofocus>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in and allow</button>
</form></body></html>
`
