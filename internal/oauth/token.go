package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
)

// An access token is a JWT signed (HS256) with a key kept in the state
// file, so tokens issued before a restart stay valid. It names its grant,
// and is accepted only while the grant lives: revoking the grant (here,
// or with `vaultmcp oauth revoke`) ends its tokens at once. Refresh
// tokens are opaque random strings kept only as hashes, bound to their
// client and rotated on every use.
type accessClaims struct {
	jwt.RegisteredClaims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
	GrantID  string `json:"gid"`
}

// tokenError is an RFC 6749 §5.2 error.
type tokenError struct {
	status     int
	code, desc string
}

func (e *tokenError) Error() string { return e.code + ": " + e.desc }

func tokenErr(status int, code, format string, args ...any) *tokenError {
	return &tokenError{status, code, fmt.Sprintf(format, args...)}
}

// token is the token endpoint: codes and refresh tokens for access tokens.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if !s.clientForm(w, r) {
		return
	}
	f := r.PostForm
	for k, v := range f {
		if len(v) > 1 {
			writeError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("the parameter %q is given more than once", truncate(k, 40)))
			return
		}
	}
	if res := f.Get("resource"); res != "" && strings.TrimSuffix(res, "/") != s.resource(r) {
		writeError(w, http.StatusBadRequest, "invalid_target", "the resource must be this server's MCP endpoint, "+s.resource(r))
		return
	}
	c, err := s.authenticateClient(r)
	if err != nil {
		var te *tokenError
		errors.As(err, &te)
		if te.status == http.StatusUnauthorized {
			if _, _, basic := r.BasicAuth(); basic {
				w.Header().Set("WWW-Authenticate", `Basic realm="vaultmcp"`)
			}
		}
		writeError(w, te.status, te.code, te.desc)
		return
	}
	var resp map[string]any
	switch f.Get("grant_type") {
	case "authorization_code":
		resp, err = s.exchangeCode(r, c)
	case "refresh_token":
		resp, err = s.refreshGrant(r, c)
	case "":
		err = tokenErr(http.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		err = tokenErr(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
	if err != nil {
		var te *tokenError
		if !errors.As(err, &te) {
			s.log.Error("oauth: token request", "err", err)
			te = tokenErr(http.StatusInternalServerError, "server_error", "the token could not be issued")
		}
		writeError(w, te.status, te.code, te.desc)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

// clientForm takes a client's POSTed form (token and revocation
// requests), within the rate limit and 64 KiB; false when it answered
// the request itself. Any origin may call these endpoints.
func (s *Server) clientForm(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use POST")
		return false
	}
	if s.opts.LimitToken != nil && !s.opts.LimitToken(w, r) {
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the body must be a form (application/x-www-form-urlencoded) of at most 64 KiB")
		return false
	}
	return true
}

// signingKey finds the key a token names (its kid) among keys.
func signingKey(keys []SigningKey) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		for _, k := range keys {
			if k.ID == kid {
				return k.Secret, nil
			}
		}
		return nil, errors.New("unknown signing key")
	}
}

// authenticateClient identifies the client of a token or revocation
// request: a confidential client by its secret (HTTP basic or the form),
// a public one by its id alone.
func (s *Server) authenticateClient(r *http.Request) (*Client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 §2.3.1: both are form-encoded inside the header.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, tokenErr(http.StatusUnauthorized, "invalid_client", "the client credentials in the Authorization header are not valid")
		}
		if formID := r.PostForm.Get("client_id"); formID != "" && formID != id {
			return nil, tokenErr(http.StatusBadRequest, "invalid_request", "client_id in the form differs from the one in the Authorization header")
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		return nil, tokenErr(http.StatusUnauthorized, "invalid_client", "client_id is required")
	}
	var c *Client
	if isMetadataURL(id) {
		// A client known by its metadata document is public: nothing to
		// check but that it is the client the code or grant names. The
		// record kept at sign-in says which it is.
		if s.docs.checkDocURL(id) != nil {
			return nil, tokenErr(http.StatusUnauthorized, "invalid_client", "the client_id is not a valid metadata document URL")
		}
		c = &Client{ID: id, AuthMethod: "none", FromMetadata: true}
	} else {
		s.state.view(func(st *State) {
			if found := st.Clients[id]; found != nil {
				cp := *found
				c = &cp
			}
		})
	}
	if c == nil {
		return nil, tokenErr(http.StatusUnauthorized, "invalid_client", "the client is not registered here (it may have been revoked, or expired after 30 days unused); register again")
	}
	if len(c.SecretHash) == 0 {
		if secret != "" {
			return nil, tokenErr(http.StatusUnauthorized, "invalid_client", "the client is public: it has no secret to send")
		}
		return c, nil
	}
	sum := sha256.Sum256([]byte(secret))
	if secret == "" || subtle.ConstantTimeCompare(sum[:], c.SecretHash) != 1 {
		return nil, tokenErr(http.StatusUnauthorized, "invalid_client", "the client secret is missing or wrong")
	}
	return c, nil
}

// exchangeCode is the authorization_code grant.
func (s *Server) exchangeCode(r *http.Request, c *Client) (map[string]any, error) {
	f := r.PostForm
	code, err := s.findCode(f.Get("code"), c.ID)
	if err != nil {
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "%v", err)
	}
	// The request is checked before the code is taken: a wrong verifier
	// (a stolen code without it) does not spend the client's code.
	switch {
	case f.Get("redirect_uri") != code.redirect:
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "redirect_uri must be the one the authorization request named")
	case !pkceMatches(f.Get("code_verifier"), code.challenge):
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "the code_verifier does not match the code_challenge")
	case f.Get("resource") != "" && strings.TrimSuffix(f.Get("resource"), "/") != code.resource:
		return nil, tokenErr(http.StatusBadRequest, "invalid_target", "the resource must be the one the authorization request named")
	}
	if err := s.claimCode(code); err != nil {
		s.mu.Lock()
		grant := code.grantID
		s.mu.Unlock()
		s.endGrant(grant)
		audited(r, "oauth-client:"+c.ID, "oauth.code_reused", c.ID)
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "%v", err)
	}
	if _, ok := s.opts.Auth.UserScope(code.user); !ok {
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "the user who signed in is no longer configured")
	}
	now := s.now()
	refresh := randomToken(32)
	rsum := sha256.Sum256([]byte(refresh))
	g := &Grant{
		ID: randomHex(12), ClientID: c.ID, User: code.user, Scopes: code.scopes, Resource: code.resource,
		Created: now, LastUsed: now, RefreshHash: rsum[:],
	}
	g.RefreshExpires = s.capped(g, now.Add(refreshTTL))
	g.AccessExpires = s.capped(g, now.Add(s.opts.TokenTTL))
	err = s.state.update(func(st *State) error {
		switch {
		case code.client.FromMetadata:
			// Kept so that `vaultmcp oauth list` can name it.
			touchClient(st, code.client, now)
		case st.Clients[c.ID] == nil:
			return tokenErr(http.StatusBadRequest, "invalid_grant", "the client was revoked")
		default:
			touchClient(st, st.Clients[c.ID], now)
		}
		st.Grants[g.ID] = g
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A second exchange that came while this one saved the grant ends it.
	s.mu.Lock()
	code.grantID = g.ID
	reused := code.reused
	s.mu.Unlock()
	if reused {
		s.endGrant(g.ID)
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "%v", errCodeReused)
	}
	audited(r, "user:"+g.User, "oauth.token", c.ID)
	return s.tokenResponse(g, g.Scopes, refresh, s.Issuer(r))
}

// pkceMatches checks a code verifier against an S256 challenge.
func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// refreshGraceTTL is how long a refresh's answer is kept for a retry of
// the same request: a client whose answer was lost on the way gets it
// again, rather than being taken for a thief.
const refreshGraceTTL = time.Minute

// recentRefresh is a refresh's answer, kept for refreshGraceTTL.
type recentRefresh struct {
	clientID string
	resp     map[string]any
	expires  time.Time
}

// refreshGrant is the refresh_token grant. A refresh token works once: it
// is replaced by a new one (a retry within a minute gets the same answer).
// One presented again later (a copy in other hands), or by another client
// than its own, ends the whole grant (RFC 9700 §4.14.2).
func (s *Server) refreshGrant(r *http.Request, c *Client) (map[string]any, error) {
	f := r.PostForm
	tok := f.Get("refresh_token")
	if tok == "" {
		return nil, tokenErr(http.StatusBadRequest, "invalid_request", "refresh_token is required")
	}
	hash := sha256.Sum256([]byte(tok))
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	now := s.now()
	for h, rr := range s.recent {
		if now.After(rr.expires) {
			delete(s.recent, h)
		}
	}
	if rr, ok := s.recent[hash]; ok && rr.clientID == c.ID && f.Get("scope") == "" {
		return rr.resp, nil
	}
	refresh := randomToken(32)
	rsum := sha256.Sum256([]byte(refresh))
	var granted *Grant
	var scopes []string
	var ended string // why the grant was ended, for the audit log
	err := s.state.update(func(st *State) error {
		g, live := s.state.grantByRefresh(hash)
		if g == nil || (live && !now.Before(g.RefreshExpires)) {
			return tokenErr(http.StatusBadRequest, "invalid_grant", "the refresh token is invalid or expired")
		}
		if live && s.ended(g, now) {
			return tokenErr(http.StatusBadRequest, "invalid_grant", "the grant reached its lifetime (http.oauth.grant_lifetime); sign in again")
		}
		if _, ok := s.opts.Auth.UserScope(g.User); !ok {
			ended = "oauth.user_removed"
			delete(st.Grants, g.ID)
			return nil
		}
		if !live || g.ClientID != c.ID {
			ended = "oauth.refresh_reused"
			if g.ClientID != c.ID {
				ended = "oauth.refresh_wrong_client"
			}
			delete(st.Grants, g.ID)
			return nil
		}
		if res := f.Get("resource"); res != "" && strings.TrimSuffix(res, "/") != g.Resource {
			return tokenErr(http.StatusBadRequest, "invalid_target", "the resource must be the one the grant is for")
		}
		scopes = g.Scopes
		if want := f.Get("scope"); want != "" {
			scopes = nil
			for _, sc := range strings.Fields(want) {
				if !slices.Contains(g.Scopes, sc) && !(sc == legacyScope && slices.Contains(g.Scopes, ScopeWrite)) {
					return tokenErr(http.StatusBadRequest, "invalid_scope", "the scope %q was not granted; sign in again to grant it", truncate(sc, 40))
				}
				if sc == legacyScope {
					sc = ScopeWrite
				}
				if !slices.Contains(scopes, sc) {
					scopes = append(scopes, sc)
				}
			}
		}
		g.Rotated = append(g.Rotated, g.RefreshHash)
		if len(g.Rotated) > maxRotated {
			g.Rotated = g.Rotated[len(g.Rotated)-maxRotated:]
		}
		g.RefreshHash = rsum[:]
		g.RefreshExpires = s.capped(g, now.Add(refreshTTL))
		g.AccessExpires = s.capped(g, now.Add(s.opts.TokenTTL))
		g.LastUsed = now
		if cl := st.Clients[g.ClientID]; cl != nil {
			cl.LastUsed = now
		}
		cp := *g
		granted = &cp
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ended != "" {
		audited(r, "oauth-client:"+c.ID, ended, c.ID)
		if ended == "oauth.user_removed" {
			return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "the user who signed in is no longer configured")
		}
		return nil, tokenErr(http.StatusBadRequest, "invalid_grant", "the refresh token was already used or belongs to another client; the grant is revoked: sign in again")
	}
	audited(r, "user:"+granted.User, "oauth.refresh", c.ID)
	resp, err := s.tokenResponse(granted, scopes, refresh, s.Issuer(r))
	if err == nil {
		s.recent[hash] = recentRefresh{clientID: c.ID, resp: resp, expires: now.Add(refreshGraceTTL)}
	}
	return resp, err
}

// capped is t, or the end of g's lifetime (GrantLifetime after its
// sign-in) when that comes first. The end is computed from the option,
// not stored, so shortening the lifetime applies to grants already made.
func (s *Server) capped(g *Grant, t time.Time) time.Time {
	if s.opts.GrantLifetime <= 0 {
		return t
	}
	if end := g.Created.Add(s.opts.GrantLifetime); end.Before(t) {
		return end
	}
	return t
}

// ended reports whether g has reached the end of its lifetime at now.
func (s *Server) ended(g *Grant, now time.Time) bool {
	return s.opts.GrantLifetime > 0 && !now.Before(g.Created.Add(s.opts.GrantLifetime))
}

// tokenResponse signs an access token for g with scopes and answers with
// it and the refresh token.
func (s *Server) tokenResponse(g *Grant, scopes []string, refresh, issuer string) (map[string]any, error) {
	var key SigningKey
	s.state.view(func(st *State) { key = st.Keys[0] })
	now := s.now()
	claims := accessClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    issuer,
			Subject:   g.User,
			Audience:  jwt.ClaimStrings{g.Resource},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(g.AccessExpires),
			ID:        randomToken(12),
		},
		ClientID: g.ClientID,
		Scope:    strings.Join(scopes, " "),
		GrantID:  g.ID,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	t.Header["kid"] = key.ID
	t.Header["typ"] = "at+jwt"
	signed, err := t.SignedString(key.Secret)
	if err != nil {
		return nil, fmt.Errorf("sign access token: %w", err)
	}
	return map[string]any{
		"access_token":  signed,
		"token_type":    "Bearer",
		"expires_in":    max(1, int(g.AccessExpires.Sub(now)/time.Second)),
		"refresh_token": refresh,
		"scope":         strings.Join(scopes, " "),
	}, nil
}

// verify checks an access token: signed by one of our keys, not expired,
// for the resource the request is for, and its grant still alive.
func (s *Server) verify(ctx context.Context, raw string) (auth.Grant, error) {
	var claims accessClaims
	var keys []SigningKey
	s.state.view(func(st *State) { keys = st.Keys })
	resource := auth.ResourceFrom(ctx)
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); typ != "at+jwt" {
			return nil, errors.New("not an access token")
		}
		return signingKey(keys)(t)
	},
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(s.now),
		jwt.WithIssuer(strings.TrimSuffix(resource, "/mcp")),
	)
	if err != nil {
		return auth.Grant{}, fmt.Errorf("oauth: %w", err)
	}
	if resource == "" || !slices.Contains(claims.Audience, resource) {
		return auth.Grant{}, errors.New("oauth: the token was not issued for this resource")
	}
	var out auth.Grant
	var touch, ended bool
	s.state.view(func(st *State) {
		g := st.Grants[claims.GrantID]
		if g == nil || g.User != claims.Subject || g.ClientID != claims.ClientID {
			return
		}
		if s.ended(g, s.now()) {
			ended = true
			return
		}
		c := st.Clients[g.ClientID]
		if c == nil {
			return
		}
		out = auth.Grant{User: g.User, ClientID: c.ID, ClientName: c.displayName(), ReadOnly: !slices.Contains(strings.Fields(claims.Scope), ScopeWrite)}
		touch = s.now().Sub(g.LastUsed) > lastUsedEvery
	})
	if ended {
		return auth.Grant{}, errors.New("oauth: the token's grant reached its lifetime (http.oauth.grant_lifetime); sign in again")
	}
	if out.User == "" {
		return auth.Grant{}, errors.New("oauth: the token's grant was revoked")
	}
	if touch {
		s.touchGrant(claims.GrantID)
	}
	return out, nil
}

// touchGrant records a grant's use, in the background and one at a time:
// the figure is for `vaultmcp oauth list`, not worth a write per call.
func (s *Server) touchGrant(id string) {
	s.mu.Lock()
	if s.touching {
		s.mu.Unlock()
		return
	}
	s.touching = true
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			s.touching = false
			s.mu.Unlock()
		}()
		now := s.now()
		err := s.state.update(func(st *State) error {
			if g := st.Grants[id]; g != nil {
				g.LastUsed = now
				if c := st.Clients[g.ClientID]; c != nil {
					c.LastUsed = now
				}
			}
			return nil
		})
		if err != nil {
			s.log.Warn("oauth: recording a grant's use", "err", err)
		}
	}()
}

// endGrant revokes a grant.
func (s *Server) endGrant(id string) {
	if id == "" {
		return
	}
	if err := s.state.update(func(st *State) error {
		delete(st.Grants, id)
		return nil
	}); err != nil {
		s.log.Error("oauth: revoking a grant", "grant", id, "err", err)
	}
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

// auditRecord is the request's audit record, if it has one.
func auditRecord(r *http.Request) *audit.Record { return audit.From(r.Context()) }
