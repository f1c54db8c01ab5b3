package oauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Bounds of what the sign-in keeps in memory.
const (
	maxCodes    = 1000
	maxAttempts = 5 // wrong passwords on one page before it must be reloaded from the app
	maxStateLen = 2000
	maxParamLen = 2000
	// maxSpent bounds the pages remembered as used or as failed, until
	// they expire; only a sign-in, a cancel or a wrong password (each
	// rate limited per address) adds one.
	maxSpent     = 10000
	challengeMin = 43
	challengeMax = 128
)

// pageRequest is an authorization request that was checked and shown as
// a sign-in page. It travels in the page's form, signed with the server's
// key, so showing a page costs the server no memory: anyone may open as
// many as they like without pushing out another person's. The signature
// binds the form to the request this server checked: nothing in it can
// be changed or doubled on the way, and no other page's form can be
// replayed for it. Each page signs in once.
type pageRequest struct {
	Nonce     string `json:"n"`
	ClientID  string `json:"c"`
	Redirect  string `json:"r"`
	State     string `json:"s,omitempty"`
	Challenge string `json:"p"`
	// Write is whether the client asked for (or by asking nothing,
	// accepts) the scope to change the vault.
	Write    bool   `json:"w,omitempty"`
	Resource string `json:"a"`
	Issuer   string `json:"i"`
	Expires  int64  `json:"e"`
}

// issuedCode is an authorization code waiting for its exchange.
type issuedCode struct {
	client    *Client // as the sign-in found it
	redirect  string
	challenge string
	user      string
	scopes    []string
	resource  string
	expires   time.Time
	// claimed is set by the first exchange; a second exchange sets
	// reused, and the grant made from the code is ended as soon as it
	// exists (RFC 6749 §4.1.2).
	claimed, reused bool
	grantID         string
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
	p := pageRequest{
		Nonce: randomToken(16), ClientID: c.ID, Redirect: redirect, State: q.Get("state"), Challenge: challenge,
		Write: write, Resource: resource, Issuer: issuer, Expires: s.now().Add(pageTTL).Unix(),
	}
	signInPage{req: p, client: c, token: s.signPage(p)}.render(w, http.StatusOK)
}

// pageKey derives the key that signs sign-in pages from a signing key,
// so a page can never pass for an access token or the other way round.
func pageKey(k SigningKey) []byte {
	m := hmac.New(sha256.New, k.Secret)
	m.Write([]byte("vaultmcp sign-in page"))
	return m.Sum(nil)
}

// signPage encodes a page request with its signature.
func (s *Server) signPage(p pageRequest) string {
	var key SigningKey
	s.state.view(func(st *State) { key = st.Keys[0] })
	payload, _ := json.Marshal(p)
	body := base64.RawURLEncoding.EncodeToString(payload)
	m := hmac.New(sha256.New, pageKey(key))
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// openPage checks a form's page token: signed by one of our keys, and
// not expired.
func (s *Server) openPage(tok string) (pageRequest, error) {
	body, sig, ok := strings.Cut(tok, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil {
		return pageRequest{}, errors.New("the form was not made by this server")
	}
	var keys []SigningKey
	s.state.view(func(st *State) { keys = st.Keys })
	valid := false
	for _, k := range keys {
		m := hmac.New(sha256.New, pageKey(k))
		m.Write([]byte(body))
		valid = valid || hmac.Equal(m.Sum(nil), mac)
	}
	if !valid {
		return pageRequest{}, errors.New("the form was not made by this server")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var p pageRequest
	if err != nil || json.Unmarshal(raw, &p) != nil {
		return pageRequest{}, errors.New("the form was not made by this server")
	}
	if s.now().Unix() > p.Expires {
		return pageRequest{}, errors.New("the sign-in page has expired")
	}
	return p, nil
}

// sweep forgets expired codes and spent pages. Called with mu held.
func (s *Server) sweep() {
	now := s.now()
	for h, c := range s.codes {
		if now.After(c.expires) {
			delete(s.codes, h)
		}
	}
	for n, exp := range s.spent {
		if now.Unix() > exp {
			delete(s.spent, n)
			delete(s.attempts, n)
		}
	}
}

// signIn is the sign-in form: a configured user's password, and the
// access they allow. The form is trusted by its signed page token, which
// only a page this server rendered holds, and not by the Origin header,
// which browsers send as "null" under the page's no-referrer policy.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		errorPage(w, http.StatusBadRequest, "The sign-in form could not be read.", "")
		return
	}
	f := r.PostForm
	p, err := s.openPage(f.Get("request"))
	if err != nil {
		errorPage(w, http.StatusForbidden, "The sign-in form could not be used: "+err.Error()+". Start connecting again from the application.", "")
		return
	}
	s.mu.Lock()
	_, used := s.spent[p.Nonce]
	s.mu.Unlock()
	if used {
		errorPage(w, http.StatusBadRequest, "This sign-in page was already used. Start connecting again from the application.", "")
		return
	}
	c, err := s.lookupClient(r, p.ClientID)
	if err != nil || !slices.Contains(c.RedirectURIs, p.Redirect) {
		errorPage(w, http.StatusBadRequest, "The application is no longer registered here with this return address. Start connecting again from the application.", "")
		return
	}
	if f.Get("action") == "deny" {
		s.spend(p)
		audited(r, "oauth-client:"+c.ID, "oauth.denied", c.ID)
		http.Redirect(w, r, withParams(p.Redirect, url.Values{
			"error": {"access_denied"}, "error_description": {"the user did not allow access"}, "state": {p.State}, "iss": {p.Issuer},
		}), http.StatusSeeOther)
		return
	}
	if s.opts.LimitSignIn != nil && !s.opts.LimitSignIn(discardLimit{}, r) {
		// A person sees a page, not the API's JSON.
		w.Header().Set("Retry-After", "60")
		signInPage{req: p, client: c, token: f.Get("request"), user: f.Get("username"),
			message: "Too many sign-in attempts from your address. Wait a minute, then try again."}.render(w, http.StatusTooManyRequests)
		return
	}
	user := f.Get("username")
	if len(user) > maxNameLen {
		user = user[:maxNameLen]
	}
	if wait := s.backoff.wait(user, s.now()); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		signInPage{req: p, client: c, token: f.Get("request"), user: user,
			message: fmt.Sprintf("Too many wrong passwords for this user. Try again in %s.", wait.Round(time.Second))}.render(w, http.StatusTooManyRequests)
		return
	}
	if !s.opts.Auth.CheckPassword(user, f.Get("password")) {
		s.backoff.failed(user, s.now())
		s.mu.Lock()
		s.attempts[p.Nonce]++
		spent := s.attempts[p.Nonce] >= maxAttempts
		s.mu.Unlock()
		// A name that is no user may be a password typed in the wrong
		// field: the log does not keep it.
		who := "unknown user"
		if _, ok := s.opts.Auth.UserScope(user); ok {
			who = user
		}
		audited(r, "oauth-sign-in:"+who, "oauth.sign_in_failed", c.ID)
		if spent {
			s.spend(p)
			errorPage(w, http.StatusForbidden, "Too many wrong attempts on this page. Start connecting again from the application.", "")
			return
		}
		signInPage{req: p, client: c, token: f.Get("request"), user: user, message: "The user name or password is not right."}.render(w, http.StatusOK)
		return
	}
	s.backoff.succeeded(user)
	scope, _ := s.opts.Auth.UserScope(user)
	write := p.Write && !scope.ReadOnly() && f.Get("access") != "read"
	scopes := []string{ScopeRead}
	if write {
		scopes = append(scopes, ScopeWrite)
	}
	scopes = append(scopes, OfflineAccess)

	if !s.spend(p) {
		errorPage(w, http.StatusBadRequest, "This sign-in page was already used. Start connecting again from the application.", "")
		return
	}
	code := randomToken(32)
	sum := sha256.Sum256([]byte(code))
	s.mu.Lock()
	s.sweep()
	if len(s.codes) >= maxCodes {
		s.mu.Unlock()
		errorPage(w, http.StatusServiceUnavailable, "The server is busy signing others in. Try again in a minute.", "")
		return
	}
	s.codes[string(sum[:])] = &issuedCode{
		client: c, redirect: p.Redirect, challenge: p.Challenge, user: user,
		scopes: scopes, resource: p.Resource, expires: s.now().Add(codeTTL),
	}
	s.mu.Unlock()
	audited(r, "user:"+user, "oauth.sign_in", c.ID)
	http.Redirect(w, r, withParams(p.Redirect, url.Values{"code": {code}, "state": {p.State}, "iss": {p.Issuer}}), http.StatusSeeOther)
}

// spend marks a page used, until it expires; it reports false when it
// already was (two submissions of one page racing).
func (s *Server) spend(p pageRequest) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, used := s.spent[p.Nonce]; used {
		return false
	}
	if len(s.spent) >= maxSpent {
		s.sweep()
	}
	if len(s.spent) >= maxSpent {
		// Only sign-ins and wrong passwords, rate limited, fill it:
		// forgetting the oldest lets a page of a minute ago be tried
		// again, with its password, no more.
		delete(s.spent, oldestSpent(s.spent))
	}
	s.spent[p.Nonce] = p.Expires
	return true
}

func oldestSpent(m map[string]int64) string {
	var id string
	var at int64
	for k, exp := range m {
		if id == "" || exp < at {
			id, at = k, exp
		}
	}
	return id
}

// findCode returns the code waiting for an exchange by client.
func (s *Server) findCode(code string, client string) (*issuedCode, error) {
	sum := sha256.Sum256([]byte(code))
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.codes[string(sum[:])]
	if c == nil || s.now().After(c.expires) {
		return nil, errors.New("the authorization code is invalid or expired")
	}
	if c.client.ID != client {
		return nil, errors.New("the authorization code was issued to another client")
	}
	return c, nil
}

// claimCode takes a checked code for an exchange. A code its client
// presents again, with the right verifier, is marked reused: the grant
// made from it is ended, now or as soon as the first exchange saved it.
func (s *Server) claimCode(c *issuedCode) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.claimed {
		c.reused = true
		return errCodeReused
	}
	c.claimed = true
	return nil
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
