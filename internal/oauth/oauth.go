// Package oauth is vaultmcp's small built-in OAuth 2.1 authorization
// server, for MCP clients that discover authentication (Claude's custom
// connectors, MCP Inspector) per the MCP authorization spec. It is built
// on ory/fosite, which does the protocol work (authorization code grant,
// PKCE, refresh tokens, token storage and introspection, client
// authentication, error responses); this package adds what fosite leaves
// to its user:
//
//   - RFC 8414 metadata at /.well-known/oauth-authorization-server;
//   - RFC 7591 dynamic client registration at /oauth/register (public
//     clients with PKCE, or confidential ones with a generated secret);
//   - the login page at /oauth/authorize, where one of the configured
//     users signs in with their password;
//   - audience binding (RFC 8707): every token is granted for this
//     server's MCP endpoint (the resource the client names, which must be
//     ours) and is accepted only there.
//
// PKCE with S256 is required of every client. Tokens are opaque
// (HMAC-signed, looked up in memory): a restart ends every grant, and
// clients register and sign in again. The server never passes a token on
// to anything else.
package oauth

import (
	"context"
	"crypto/rand"
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

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/storage"

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
	RevokePath    = "/oauth/revoke"
)

// maxClients bounds dynamic registrations kept in memory.
const maxClients = 1000

// Options configure a Server.
type Options struct {
	// Auth checks the users' passwords and is told of the tokens issued.
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
	opts     Options
	provider fosite.OAuth2Provider
	store    *store
	mux      *http.ServeMux
	log      *slog.Logger
}

var _ auth.Verifier = (*Server)(nil)

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
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("oauth: secret: %w", err)
	}
	cfg := &fosite.Config{
		AccessTokenLifespan:   opts.TokenTTL,
		AuthorizeCodeLifespan: 5 * time.Minute,
		RefreshTokenLifespan:  30 * 24 * time.Hour,
		GlobalSecret:          secret,
		EnforcePKCE:           true,
		// Every grant gets a refresh token: MCP clients do not always ask
		// for offline_access, and a connector that must sign in again every
		// hour is no use.
		RefreshTokenScopes: []string{},
		ScopeStrategy:      fosite.ExactScopeStrategy,
		// The resource (audience) is granted by this package from the
		// client's resource parameter, checked against the server's own.
		AudienceMatchingStrategy: func([]string, []string) error { return nil },
		ClientSecretsHasher:      &fosite.BCrypt{Config: &fosite.Config{HashCost: 10}},
	}
	st := &store{MemoryStore: storage.NewMemoryStore(), clients: map[string]*client{}}
	s := &Server{
		opts:  opts,
		store: st,
		log:   opts.Logger,
		provider: compose.Compose(cfg, st, compose.NewOAuth2HMACStrategy(cfg),
			compose.OAuth2AuthorizeExplicitFactory,
			compose.OAuth2RefreshTokenGrantFactory,
			compose.OAuth2PKCEFactory,
			compose.OAuth2TokenIntrospectionFactory,
			compose.OAuth2TokenRevocationFactory,
		),
	}
	mux := http.NewServeMux()
	mux.HandleFunc(MetadataPath, s.metadata)
	mux.HandleFunc(RegisterPath, s.register)
	mux.HandleFunc(AuthorizePath, s.authorize)
	mux.HandleFunc(TokenPath, s.token)
	mux.HandleFunc(RevokePath, s.revoke)
	s.mux = mux
	return s, nil
}

// Handler serves the authorization server's endpoints.
func (s *Server) Handler() http.Handler { return s.mux }

// Paths are the paths Handler serves.
func (s *Server) Paths() []string {
	return []string{MetadataPath, RegisterPath, AuthorizePath, TokenPath, RevokePath}
}

// Issuer is the authorization server's issuer for a request: the public
// base URL.
func (s *Server) Issuer(r *http.Request) string { return s.opts.Base(r) }

func (s *Server) resource(r *http.Request) string { return s.opts.Base(r) + "/mcp" }

// VerifyAccessToken checks an access token issued here: valid, not
// expired or revoked, and granted for the resource the request is for.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (string, error) {
	use, ar, err := s.provider.IntrospectToken(ctx, token, fosite.AccessToken, &fosite.DefaultSession{})
	if err != nil {
		return "", err
	}
	// The kind asked for is only a hint to fosite: a refresh token
	// introspects too, and must not open the door.
	if use != fosite.AccessToken {
		return "", errors.New("oauth: not an access token")
	}
	resource := auth.ResourceFrom(ctx)
	if resource == "" || !slices.Contains(ar.GetGrantedAudience(), resource) {
		return "", errors.New("oauth: the token was not issued for this resource")
	}
	user := ar.GetSession().GetSubject()
	if user == "" {
		return "", errors.New("oauth: the token names no user")
	}
	return user, nil
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
		"revocation_endpoint":                   base + RevokePath,
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
	c := &client{DefaultClient: &fosite.DefaultClient{
		ID:            id,
		RedirectURIs:  req.RedirectURIs,
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
		Scopes:        []string{Scope, OfflineAccess},
		Public:        method == "none",
	}, name: req.ClientName, method: method}
	resp := req
	if !c.Public {
		secret, err := randomHex(32)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "server_error", "could not make a client secret")
			return
		}
		hash, err := (&fosite.BCrypt{Config: &fosite.Config{HashCost: 10}}).Hash(r.Context(), []byte(secret))
		if err != nil {
			writeError(w, http.StatusInternalServerError, "server_error", "could not hash the client secret")
			return
		}
		c.Secret = hash
		resp.ClientSecret = secret
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	if !s.store.addClient(c) {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many registered clients; restart the server to clear them")
		return
	}
	resp.ClientID = id
	resp.ClientIDIssuedAt = time.Now().Unix()
	resp.TokenEndpointAuthMethod = method
	resp.GrantTypes = c.GrantTypes
	resp.ResponseTypes = c.ResponseTypes
	resp.Scope = strings.Join(c.Scopes, " ")
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
		if !fosite.IsLocalhost(u) {
			return fmt.Errorf("redirect URI %q: plain http is allowed only to localhost", raw)
		}
	case "javascript", "data", "file", "vbscript":
		return fmt.Errorf("redirect URI %q: scheme %s is not allowed", raw, u.Scheme)
	}
	return nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// authorize shows the login page (GET) and, when a configured user signs
// in (POST), grants the code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use GET or POST")
		return
	}
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	if err != nil {
		s.authorizeError(w, r, ar, err)
		return
	}
	if m := ar.GetRequestForm().Get("code_challenge_method"); m != "S256" {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("PKCE with code_challenge_method=S256 is required."))
		return
	}
	resource := s.resource(r)
	if want := ar.GetRequestForm()["resource"]; len(want) > 0 && (len(want) != 1 || strings.TrimSuffix(want[0], "/") != resource) {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint(
			fmt.Sprintf("The resource parameter must be this server's MCP endpoint, %s.", resource)).WithDebugf("resource %q", want))
		return
	}
	c, _ := ar.GetClient().(*client)
	page := loginPage{Client: c.displayName(), Redirect: redirectHost(ar.GetRedirectURI()), Params: hiddenParams(ar.GetRequestForm())}
	if r.Method == http.MethodGet {
		page.render(w, http.StatusOK)
		return
	}
	if s.opts.LimitLogin != nil && !s.opts.LimitLogin(w, r) {
		return
	}
	user := r.PostForm.Get("username")
	if rec := audit.From(ctx); rec != nil {
		rec.SetIdentity("oauth-login:" + user)
	}
	if !s.opts.Auth.CheckPassword(user, r.PostForm.Get("password")) {
		page.Error = "Wrong user name or password."
		page.User = user
		page.render(w, http.StatusUnauthorized)
		return
	}
	for _, sc := range ar.GetRequestedScopes() {
		ar.GrantScope(sc)
	}
	ar.GrantAudience(resource)
	resp, err := s.provider.NewAuthorizeResponse(ctx, ar, &fosite.DefaultSession{Subject: user, Username: user})
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAuthorizeResponse(ctx, w, ar, resp)
}

// authorizeError answers an invalid authorization request. Errors fosite
// cannot redirect (an unknown client, a redirect URI not registered) are
// shown, not sent anywhere.
func (s *Server) authorizeError(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester, err error) {
	var rfc *fosite.RFC6749Error
	if errors.As(err, &rfc) && (rfc.ErrorField == fosite.ErrInvalidClient.ErrorField || rfc.ErrorField == fosite.ErrInvalidRequest.ErrorField && ar.GetRedirectURI() == nil) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "This sign-in link is not valid: %s\n", rfc.GetDescription())
		return
	}
	s.provider.WriteAuthorizeError(r.Context(), w, ar, err)
}

// token is the token endpoint: codes and refresh tokens for access tokens.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sess := &fosite.DefaultSession{}
	ar, err := s.provider.NewAccessRequest(ctx, r, sess)
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	if want := ar.GetRequestForm()["resource"]; len(want) > 0 && (len(want) != 1 || strings.TrimSuffix(want[0], "/") != s.resource(r)) {
		s.provider.WriteAccessError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint("The resource parameter must be this server's MCP endpoint."))
		return
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

// revoke is RFC 7009 token revocation.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	err := s.provider.NewRevocationRequest(r.Context(), r)
	s.provider.WriteRevocationResponse(r.Context(), w, err)
}

// client is a registered client.
type client struct {
	*fosite.DefaultClient
	name   string
	method string
	added  time.Time
}

func (c *client) displayName() string {
	if c == nil || c.name == "" {
		return "An application"
	}
	return c.name
}

// store is fosite's memory store with a client table of its own, safe to
// add to while serving.
type store struct {
	*storage.MemoryStore
	mu      sync.RWMutex
	clients map[string]*client
}

// GetClient returns a registered client.
func (st *store) GetClient(_ context.Context, id string) (fosite.Client, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	c, ok := st.clients[id]
	if !ok {
		return nil, fosite.ErrNotFound
	}
	return c, nil
}

func (st *store) addClient(c *client) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.clients) >= maxClients {
		return false
	}
	c.added = time.Now()
	st.clients[c.ID] = c
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
	_ = loginTemplate.Execute(w, p)
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

func redirectHost(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
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
`))
