package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Bounds of what the sign-in keeps in memory between a page and its
// form, and between a code and its exchange.
const (
	maxPages     = 1000
	maxCodes     = 1000
	maxAttempts  = 5 // wrong passwords on one page before it must be reloaded from the app
	maxStateLen  = 2000
	maxParamLen  = 2000
	challengeMin = 43
	challengeMax = 128
)

// pendingAuth is an authorization request that was checked and shown as
// a sign-in page. The form sends back only the page's id and its
// anti-forgery token: the request itself never travels through the
// browser again, so it cannot be changed or doubled on the way.
type pendingAuth struct {
	id, csrf  string
	client    *Client
	redirect  string
	state     string
	challenge string
	// write is whether the client asked for (or by asking nothing,
	// accepts) the scope to change the vault.
	write    bool
	resource string
	issuer   string
	expires  time.Time
	attempts int
}

// issuedCode is an authorization code waiting for its exchange.
type issuedCode struct {
	clientID  string
	redirect  string
	challenge string
	user      string
	scopes    []string
	resource  string
	expires   time.Time
	// grantID is the grant the code was exchanged for: a second exchange
	// of the same code ends it (RFC 6749 §4.1.2).
	grantID string
}

// authorize is the authorization endpoint: GET shows the sign-in page for
// a checked request, POST is that page's form.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		s.authorizePage(w, r)
	case http.MethodPost:
		s.signIn(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		errorPage(w, http.StatusMethodNotAllowed, "This address takes GET (the sign-in page) or POST (its form).", "")
	}
}

// authorizePage checks an authorization request and shows the sign-in
// page. A request that fails here, before the person has done anything,
// is shown as an error page with a link back to the application, never
// sent back on its own (RFC 9700 §4.11: an automatic redirect on error
// makes this server an open redirector).
func (s *Server) authorizePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k, v := range q {
		if len(v) > 1 {
			errorPage(w, http.StatusBadRequest, fmt.Sprintf("The sign-in link is not valid: the parameter %q is given more than once.", truncate(k, 40)), "")
			return
		}
		if len(v[0]) > maxParamLen {
			errorPage(w, http.StatusBadRequest, fmt.Sprintf("The sign-in link is not valid: the parameter %q is longer than %d characters.", truncate(k, 40), maxParamLen), "")
			return
		}
	}
	c, err := s.lookupClient(r, q.Get("client_id"))
	if err != nil {
		errorPage(w, http.StatusBadRequest, "The sign-in link is not valid: "+err.Error()+".", "")
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !slices.Contains(c.RedirectURIs, redirect) {
		errorPage(w, http.StatusBadRequest, "The sign-in link is not valid: its return address is not one the application registered.", "")
		return
	}
	issuer := s.Issuer(r)
	back := func(code, desc string) {
		errorPage(w, http.StatusBadRequest, "The application asked for something this server does not do: "+desc+".",
			withParams(redirect, url.Values{"error": {code}, "error_description": {desc}, "state": {q.Get("state")}, "iss": {issuer}}))
	}
	resource := s.resource(r)
	challenge := q.Get("code_challenge")
	switch {
	case q.Get("response_type") != "code":
		back("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge_method") != "S256" || len(challenge) < challengeMin || len(challenge) > challengeMax:
		back("invalid_request", "PKCE with code_challenge_method=S256 and a code_challenge of 43 to 128 characters is required")
		return
	case q.Has("resource") && strings.TrimSuffix(q.Get("resource"), "/") != resource:
		back("invalid_target", "the resource must be this server's MCP endpoint, "+resource)
		return
	}
	_, write := parseScopes(q.Get("scope"))
	p := &pendingAuth{
		id: randomToken(18), csrf: randomToken(24), client: c, redirect: redirect, state: q.Get("state"),
		challenge: challenge, write: write, resource: resource, issuer: issuer, expires: s.now().Add(pageTTL),
	}
	s.mu.Lock()
	s.sweep()
	if len(s.pages) >= maxPages {
		delete(s.pages, oldestPage(s.pages))
	}
	s.pages[p.id] = p
	s.mu.Unlock()
	signInPage{pending: p}.render(w, http.StatusOK)
}

// sweep forgets expired pages and codes. Called with mu held.
func (s *Server) sweep() {
	now := s.now()
	for id, p := range s.pages {
		if now.After(p.expires) {
			delete(s.pages, id)
		}
	}
	for h, c := range s.codes {
		if now.After(c.expires) {
			delete(s.codes, h)
		}
	}
}

func oldestPage(pages map[string]*pendingAuth) string {
	var id string
	var at time.Time
	for k, p := range pages {
		if id == "" || p.expires.Before(at) {
			id, at = k, p.expires
		}
	}
	return id
}

// signIn is the sign-in form: a configured user's password, and the
// access they allow. The form is trusted by its anti-forgery token, which
// only the page this server rendered for this request holds, and not by
// the Origin header, which browsers send as "null" under the page's
// no-referrer policy.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		errorPage(w, http.StatusBadRequest, "The sign-in form could not be read.", "")
		return
	}
	f := r.PostForm
	s.mu.Lock()
	p := s.pages[f.Get("page")]
	if p != nil && s.now().After(p.expires) {
		delete(s.pages, p.id)
		p = nil
	}
	s.mu.Unlock()
	if p == nil {
		errorPage(w, http.StatusBadRequest, "This sign-in page has expired or was already used. Start connecting again from the application.", "")
		return
	}
	if subtle.ConstantTimeCompare([]byte(f.Get("csrf")), []byte(p.csrf)) != 1 {
		errorPage(w, http.StatusForbidden, "The sign-in form could not be verified (it did not come from the page this server showed). Start connecting again from the application.", "")
		return
	}
	if f.Get("action") == "deny" {
		s.dropPage(p.id)
		audited(r, "oauth-client:"+p.client.ID, "oauth.denied", p.client.ID)
		http.Redirect(w, r, withParams(p.redirect, url.Values{
			"error": {"access_denied"}, "error_description": {"the user did not allow access"}, "state": {p.state}, "iss": {p.issuer},
		}), http.StatusSeeOther)
		return
	}
	if s.opts.LimitLogin != nil && !s.opts.LimitLogin(w, r) {
		return
	}
	user := f.Get("username")
	if len(user) > maxNameLen {
		user = user[:maxNameLen]
	}
	if !s.opts.Auth.CheckPassword(user, f.Get("password")) {
		s.mu.Lock()
		p.attempts++
		spent := p.attempts >= maxAttempts
		if spent {
			delete(s.pages, p.id)
		}
		s.mu.Unlock()
		audited(r, "oauth-sign-in:"+user, "oauth.sign_in_failed", p.client.ID)
		if spent {
			errorPage(w, http.StatusForbidden, "Too many wrong attempts on this page. Start connecting again from the application.", "")
			return
		}
		signInPage{pending: p, user: user, failed: true}.render(w, http.StatusOK)
		return
	}
	scope, _ := s.opts.Auth.UserScope(user)
	write := p.write && !scope.ReadOnly() && f.Get("access") != "read"
	scopes := []string{ScopeRead}
	if write {
		scopes = append(scopes, ScopeWrite)
	}
	scopes = append(scopes, OfflineAccess)

	code := randomToken(32)
	sum := sha256.Sum256([]byte(code))
	s.mu.Lock()
	delete(s.pages, p.id)
	s.sweep()
	if len(s.codes) >= maxCodes {
		s.mu.Unlock()
		errorPage(w, http.StatusServiceUnavailable, "The server is busy signing others in. Try again in a minute.", "")
		return
	}
	s.codes[string(sum[:])] = &issuedCode{
		clientID: p.client.ID, redirect: p.redirect, challenge: p.challenge, user: user,
		scopes: scopes, resource: p.resource, expires: s.now().Add(codeTTL),
	}
	s.mu.Unlock()
	audited(r, "user:"+user, "oauth.sign_in", p.client.ID)
	http.Redirect(w, r, withParams(p.redirect, url.Values{"code": {code}, "state": {p.state}, "iss": {p.issuer}}), http.StatusSeeOther)
}

func (s *Server) dropPage(id string) {
	s.mu.Lock()
	delete(s.pages, id)
	s.mu.Unlock()
}

// takeCode removes a code and returns it; a code presented again finds
// the grant it was exchanged for, which the caller ends.
func (s *Server) takeCode(code string) (*issuedCode, error) {
	sum := sha256.Sum256([]byte(code))
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.codes[string(sum[:])]
	if c == nil || s.now().After(c.expires) {
		return nil, errors.New("the authorization code is invalid or expired")
	}
	if c.grantID != "" {
		return c, errCodeReused
	}
	return c, nil
}

var errCodeReused = errors.New("the authorization code was already used; the grant made from it is revoked")

// withParams adds params (those not empty) to a redirect URI's query,
// keeping the query it has.
func withParams(redirect string, params url.Values) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return redirect
	}
	q := u.Query()
	for k, v := range params {
		if len(v) > 0 && v[0] != "" {
			q.Set(k, v[0])
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
