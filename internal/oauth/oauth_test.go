package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"vaultmcp/internal/auth"
)

// clock is a settable clock for the server under test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// asEnv is the authorization server alone on a loopback listener.
type asEnv struct {
	t     testing.TB
	srv   *Server
	authn *auth.Authenticator
	url   string
	state string
	clock *clock
	opts  Options
	c     *http.Client // follows no redirects
}

func newAS(t testing.TB, edit ...func(*Options)) *asEnv {
	t.Helper()
	hash, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	authn, err := auth.New(auth.Options{Users: []auth.User{
		{Name: "alice", PasswordHash: string(hash)},
		{Name: "reader", PasswordHash: string(hash), Rules: readOnlyRules},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e := &asEnv{t: t, authn: authn, clock: &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)},
		c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	e.state = filepath.Join(t.TempDir(), "state", "oauth.json")
	ts := httptest.NewUnstartedServer(nil)
	e.url = "http://" + ts.Listener.Addr().String()
	e.opts = Options{
		Auth: authn, Base: func(*http.Request) string { return e.url }, StateFile: e.state, Now: e.clock.now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, f := range edit {
		f(&e.opts)
	}
	e.start()
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { e.srv.Handler().ServeHTTP(w, r) })
	ts.Start()
	t.Cleanup(ts.Close)
	return e
}

// start (re)builds the server on the state file, as a restart would.
func (e *asEnv) start() {
	e.t.Helper()
	srv, err := New(e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv = srv
	e.authn.SetOAuth(srv)
}

func (e *asEnv) register(body string) (int, map[string]any) {
	e.t.Helper()
	resp, err := e.c.Post(e.url+RegisterPath, "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// client registers a public native client with a loopback redirect.
func (e *asEnv) client() (id, redirect string) {
	e.t.Helper()
	redirect = "http://127.0.0.1:9/cb"
	status, m := e.register(`{"redirect_uris":["` + redirect + `"],"client_name":"Test client"}`)
	if status != http.StatusCreated {
		e.t.Fatalf("register: %d %v", status, m)
	}
	return m["client_id"].(string), redirect
}

const verifier = "0123456789abcdef0123456789abcdef0123456789abcdef"

func challenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (e *asEnv) authorizeQuery(clientID, redirect string) url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"}, "resource": {e.url + "/mcp"},
	}
}

func (e *asEnv) get(path string, q url.Values) (*http.Response, string) {
	e.t.Helper()
	resp, err := e.c.Get(e.url + path + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

var hiddenField = regexp.MustCompile(`name="(request)" value="([^"]+)"`)

// page opens the sign-in page and returns its form's hidden fields.
func (e *asEnv) page(q url.Values) url.Values {
	e.t.Helper()
	resp, body := e.get(AuthorizePath, q)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("sign-in page: %d\n%s", resp.StatusCode, body)
	}
	f := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(body, -1) {
		f.Set(m[1], m[2])
	}
	if f.Get("request") == "" {
		e.t.Fatalf("sign-in page without its hidden fields:\n%s", body)
	}
	return f
}

func (e *asEnv) post(path string, form url.Values, edit ...func(*http.Request)) (*http.Response, string) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, f := range edit {
		f(req)
	}
	resp, err := e.c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// signIn signs in on a page and returns the redirect's query.
func (e *asEnv) signIn(f url.Values, user, password, access string) url.Values {
	e.t.Helper()
	f = cloneValues(f)
	f.Set("username", user)
	f.Set("password", password)
	f.Set("access", access)
	f.Set("action", "allow")
	resp, body := e.post(AuthorizePath, f)
	if resp.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign in: %d\n%s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	return loc.Query()
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// tokens runs a token request and decodes the answer.
func (e *asEnv) tokens(form url.Values, edit ...func(*http.Request)) (int, map[string]any) {
	e.t.Helper()
	resp, body := e.post(TokenPath, form, edit...)
	var m map[string]any
	_ = json.Unmarshal([]byte(body), &m)
	return resp.StatusCode, m
}

// grant runs the whole flow for a client and returns the token answer.
func (e *asEnv) grant(clientID, redirect, access string) map[string]any {
	e.t.Helper()
	q := e.signIn(e.page(e.authorizeQuery(clientID, redirect)), "alice", "pw", access)
	status, m := e.tokens(url.Values{
		"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}, "resource": {e.url + "/mcp"},
	})
	if status != http.StatusOK {
		e.t.Fatalf("code exchange: %d %v", status, m)
	}
	return m
}

func (e *asEnv) verify(token string) (auth.Grant, error) {
	ctx := auth.WithResource(context.Background(), e.url+"/mcp")
	return e.srv.VerifyAccessToken(ctx, token)
}

func (e *asEnv) refresh(clientID, refresh string) (int, map[string]any) {
	e.t.Helper()
	return e.tokens(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
}

func TestRegistration(t *testing.T) {
	e := newAS(t, func(o *Options) { o.RedirectSchemes = []string{"cursor"} })
	long := strings.Repeat("x", 2001)
	many := strings.Repeat(`"https://a.example/cb",`, 10) + `"https://a.example/cb"`
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"loopback native", `{"redirect_uris":["http://127.0.0.1:8080/cb"]}`, 201, ""},
		{"localhost", `{"redirect_uris":["http://localhost/cb"],"application_type":"native"}`, 201, ""},
		{"https web", `{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"application_type":"web"}`, 201, ""},
		{"private-use scheme with a dot", `{"redirect_uris":["com.example.app:/cb"]}`, 201, ""},
		{"configured scheme", `{"redirect_uris":["cursor://anysphere/cb"]}`, 201, ""},
		{"confidential", `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, 201, ""},
		{"no redirect", `{}`, 400, "invalid_redirect_uri"},
		{"web client on loopback http", `{"redirect_uris":["http://127.0.0.1/cb"],"application_type":"web"}`, 400, "invalid_redirect_uri"},
		{"plain http elsewhere", `{"redirect_uris":["http://evil.example/cb"]}`, 400, "invalid_redirect_uri"},
		{"javascript", `{"redirect_uris":["javascript:alert(1)"]}`, 400, "invalid_redirect_uri"},
		{"blob", `{"redirect_uris":["blob:https://a.example/x"]}`, 400, "invalid_redirect_uri"},
		{"app launcher", `{"redirect_uris":["ms-officecmd:x"]}`, 400, "invalid_redirect_uri"},
		{"fragment", `{"redirect_uris":["https://a.example/cb#x"]}`, 400, "invalid_redirect_uri"},
		{"user info", `{"redirect_uris":["https://u:p@a.example/cb"]}`, 400, "invalid_redirect_uri"},
		{"long redirect", `{"redirect_uris":["https://a.example/` + long + `"]}`, 400, "invalid_redirect_uri"},
		{"too many redirects", `{"redirect_uris":[` + many + `]}`, 400, "invalid_redirect_uri"},
		{"long name", `{"redirect_uris":["https://a.example/cb"],"client_name":"` + strings.Repeat("n", 201) + `"}`, 400, "invalid_client_metadata"},
		{"name of 200 letters", `{"redirect_uris":["https://a.example/cb"],"client_name":"` + strings.Repeat("é", 200) + `"}`, 201, ""},
		{"unknown auth method", `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, 400, "invalid_client_metadata"},
		{"unknown application type", `{"redirect_uris":["https://a.example/cb"],"application_type":"desktop"}`, 400, "invalid_client_metadata"},
		{"implicit grant", `{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}`, 400, "invalid_client_metadata"},
		{"not JSON", `redirect_uris=x`, 400, "invalid_client_metadata"},
		{"body over 64 KiB", `{"redirect_uris":["https://a.example/cb"],"x":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := e.register(tc.body)
			if status != tc.status || (tc.code != "" && m["error"] != tc.code) {
				t.Fatalf("got %d %v, want %d %s", status, m, tc.status, tc.code)
			}
			if status == 201 && (m["client_id"] == "" || m["application_type"] == "") {
				t.Errorf("answer lacks client_id or application_type: %v", m)
			}
		})
	}
}

func TestAuthorizationCodeFlow(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	f := e.page(e.authorizeQuery(id, redirect))

	// A wrong password shows the page again, saying only that it failed.
	f2 := cloneValues(f)
	f2.Set("username", "nobody")
	f2.Set("password", "x")
	resp, body := e.post(AuthorizePath, f2)
	if resp.StatusCode != 200 || !strings.Contains(body, "The user name or password is not right.") || strings.Contains(body, "nobody exists") {
		t.Fatalf("wrong password: %d\n%s", resp.StatusCode, body)
	}

	q := e.signIn(f, "alice", "pw", "write")
	if q.Get("state") != "st" || q.Get("iss") != e.url || q.Get("code") == "" {
		t.Fatalf("redirect query %v: want code, state and iss", q)
	}
	exchange := url.Values{
		"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {redirect},
		"client_id": {id}, "code_verifier": {verifier}, "resource": {e.url + "/mcp"},
	}
	bad := cloneValues(exchange)
	bad.Set("code_verifier", strings.Repeat("z", 43))
	if status, m := e.tokens(bad); status != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("wrong verifier: %d %v", status, m)
	}
	status, m := e.tokens(exchange)
	if status != 200 || m["token_type"] != "Bearer" || m["refresh_token"] == "" || m["scope"] != "vault:read vault:write offline_access" {
		t.Fatalf("exchange: %d %v", status, m)
	}
	g, err := e.verify(m["access_token"].(string))
	if err != nil || g.User != "alice" || g.ClientID != id || g.ClientName != "Test client" || g.ReadOnly {
		t.Fatalf("verify: %+v %v", g, err)
	}
	// Another resource (the same server by another name) is refused.
	if _, err := e.srv.VerifyAccessToken(auth.WithResource(context.Background(), "http://other/mcp"), m["access_token"].(string)); err == nil {
		t.Error("a token was accepted for another resource")
	}

	// The code works once; a second exchange ends the grant made from it.
	if status, m2 := e.tokens(exchange); status != 400 || m2["error"] != "invalid_grant" {
		t.Fatalf("second exchange: %d %v", status, m2)
	}
	if _, err := e.verify(m["access_token"].(string)); err == nil {
		t.Error("the grant of a reused code still works")
	}
}

func TestRefreshRotationAndReuse(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	first := e.grant(id, redirect, "write")
	status, second := e.refresh(id, first["refresh_token"].(string))
	if status != 200 || second["refresh_token"] == first["refresh_token"] {
		t.Fatalf("refresh: %d %v", status, second)
	}
	if _, err := e.verify(second["access_token"].(string)); err != nil {
		t.Fatalf("refreshed token: %v", err)
	}
	// A retry within a minute (the answer was lost) gets the same answer.
	if status, again := e.refresh(id, first["refresh_token"].(string)); status != 200 || again["refresh_token"] != second["refresh_token"] {
		t.Fatalf("retried refresh: %d %v", status, again)
	}
	// Later, the replaced refresh token presented again ends the grant.
	e.clock.advance(refreshGraceTTL + time.Second)
	if status, m := e.refresh(id, first["refresh_token"].(string)); status != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("reuse: %d %v", status, m)
	}
	if _, err := e.verify(second["access_token"].(string)); err == nil {
		t.Error("the grant survived a reused refresh token")
	}
	if status, _ := e.refresh(id, second["refresh_token"].(string)); status != 400 {
		t.Error("the grant's newest refresh token still works after reuse was detected")
	}
}

func TestRefreshIsBoundToItsClient(t *testing.T) {
	e := newAS(t)
	a, redirect := e.client()
	b, _ := e.client()
	tok := e.grant(a, redirect, "write")
	if status, m := e.refresh(b, tok["refresh_token"].(string)); status != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("another client's refresh: %d %v", status, m)
	}
	if status, _ := e.refresh(a, tok["refresh_token"].(string)); status != 400 {
		t.Error("a refresh token shown by another client still works for its own")
	}

	// A confidential client must send its secret.
	status, reg := e.register(`{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`)
	if status != 201 {
		t.Fatal(reg)
	}
	cid, secret := reg["client_id"].(string), reg["client_secret"].(string)
	q := e.signIn(e.page(e.authorizeQuery(cid, "https://app.example/cb")), "alice", "pw", "write")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {"https://app.example/cb"}, "code_verifier": {verifier}}
	noSecret := cloneValues(form)
	noSecret.Set("client_id", cid)
	if status, m := e.tokens(noSecret); status != 401 || m["error"] != "invalid_client" {
		t.Fatalf("confidential client without its secret: %d %v", status, m)
	}
	status, m := e.tokens(form, func(r *http.Request) { r.SetBasicAuth(cid, "wrong") })
	if status != 401 || m["error"] != "invalid_client" {
		t.Fatalf("wrong secret: %d %v", status, m)
	}
	status, m = e.tokens(form, func(r *http.Request) { r.SetBasicAuth(cid, secret) })
	if status != 200 {
		t.Fatalf("right secret: %d %v", status, m)
	}
	if status, _ := e.refresh(cid, m["refresh_token"].(string)); status != 401 {
		t.Errorf("confidential refresh without the secret: %d, want 401", status)
	}
}

func TestErrorsBeforeTheUserActsAreShownNotRedirected(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	for _, tc := range []struct {
		name string
		edit func(url.Values)
		want string
	}{
		{"unknown client", func(q url.Values) { q.Set("client_id", "nope") }, "not registered"},
		{"unregistered redirect", func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") }, "return address"},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge") }, "PKCE"},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "PKCE"},
		{"token response type", func(q url.Values) { q.Set("response_type", "token") }, "response_type"},
		{"other resource", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }, "resource"},
		{"resource twice", func(q url.Values) { q.Add("resource", e.url+"/mcp") }, "more than once"},
		{"huge state", func(q url.Values) { q.Set("state", strings.Repeat("s", 3000)) }, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := e.authorizeQuery(id, redirect)
			tc.edit(q)
			resp, body := e.get(AuthorizePath, q)
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(body, tc.want) {
				t.Fatalf("%d Location=%q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
		})
	}
}

func TestSignInForm(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	f := e.page(e.authorizeQuery(id, redirect))
	for _, tc := range []struct {
		name   string
		edit   func(url.Values)
		status int
	}{
		{"forged request", func(f url.Values) { f.Set("request", f.Get("request")[:20]+"x"+f.Get("request")[21:]) }, 403},
		{"no request", func(f url.Values) { f.Del("request") }, 403},
		{"changed request", func(f url.Values) {
			body, sig, _ := strings.Cut(f.Get("request"), ".")
			raw, _ := base64.RawURLEncoding.DecodeString(body)
			raw = []byte(strings.Replace(string(raw), `"w":true`, `"w":false`, 1))
			f.Set("request", base64.RawURLEncoding.EncodeToString(raw)+"."+sig)
		}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := cloneValues(f)
			g.Set("username", "alice")
			g.Set("password", "pw")
			tc.edit(g)
			resp, body := e.post(AuthorizePath, g)
			if resp.StatusCode != tc.status || resp.Header.Get("Location") != "" {
				t.Fatalf("%d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
		})
	}
	t.Run("Origin null is fine", func(t *testing.T) {
		g := cloneValues(f)
		g.Set("username", "alice")
		g.Set("password", "pw")
		resp, _ := e.post(AuthorizePath, g, func(r *http.Request) { r.Header.Set("Origin", "null") })
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%d", resp.StatusCode)
		}
	})
	t.Run("a page signs in once", func(t *testing.T) {
		g := cloneValues(f)
		g.Set("username", "alice")
		g.Set("password", "pw")
		if resp, _ := e.post(AuthorizePath, g); resp.StatusCode != 400 {
			t.Fatalf("second sign-in on one page: %d", resp.StatusCode)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		g := e.page(e.authorizeQuery(id, redirect))
		g.Set("action", "deny")
		resp, _ := e.post(AuthorizePath, g)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Query().Get("error") != "access_denied" || loc.Query().Get("iss") != e.url {
			t.Fatalf("%d %v", resp.StatusCode, loc)
		}
	})
	t.Run("too many wrong passwords", func(t *testing.T) {
		g := e.page(e.authorizeQuery(id, redirect))
		g.Set("username", "alice")
		g.Set("password", "wrong")
		var status int
		for range maxAttempts {
			resp, _ := e.post(AuthorizePath, g)
			status = resp.StatusCode
		}
		if status != 403 {
			t.Fatalf("after %d wrong passwords: %d", maxAttempts, status)
		}
	})
	t.Run("the page allows the redirect in form-action", func(t *testing.T) {
		resp, _ := e.get(AuthorizePath, e.authorizeQuery(id, redirect))
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:9") {
			t.Fatalf("CSP %q", csp)
		}
	})
}

func TestReadOnlyAccess(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	m := e.grant(id, redirect, "read")
	if m["scope"] != "vault:read offline_access" {
		t.Fatalf("scope %v", m["scope"])
	}
	g, err := e.verify(m["access_token"].(string))
	if err != nil || !g.ReadOnly {
		t.Fatalf("%+v %v", g, err)
	}
	ident, err := e.authn.Verify(auth.WithResource(context.Background(), e.url+"/mcp"), m["access_token"].(string))
	if err != nil || !ident.Scope.ReadOnly() || ident.StepUp != "vault:write" {
		t.Fatalf("identity %+v %v", ident, err)
	}
	// A client that asks for read only is offered nothing more.
	q := e.authorizeQuery(id, redirect)
	q.Set("scope", "vault:read")
	if _, body := e.get(AuthorizePath, q); strings.Contains(body, `value="write"`) {
		t.Error("the page offers write access to a client that asked for read only")
	}
	// A user who may not write gets vault:read, and no step-up.
	f := e.page(e.authorizeQuery(id, redirect))
	rq := e.signIn(f, "reader", "pw", "write")
	_, tok := e.tokens(url.Values{"grant_type": {"authorization_code"}, "code": {rq.Get("code")}, "redirect_uri": {redirect}, "client_id": {id}, "code_verifier": {verifier}})
	if tok["scope"] != "vault:read offline_access" {
		t.Fatalf("read-only user's scope %v", tok["scope"])
	}
	ident, err = e.authn.Verify(auth.WithResource(context.Background(), e.url+"/mcp"), tok["access_token"].(string))
	if err != nil || ident.StepUp != "" {
		t.Fatalf("read-only user: %+v %v", ident, err)
	}
}

func TestGrantsSurviveARestart(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	m := e.grant(id, redirect, "write")
	e.start()
	if _, err := e.verify(m["access_token"].(string)); err != nil {
		t.Fatalf("access token after a restart: %v", err)
	}
	status, r := e.refresh(id, m["refresh_token"].(string))
	if status != 200 {
		t.Fatalf("refresh after a restart: %d %v", status, r)
	}
	fi, err := os.Stat(e.state)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(e.state)
	for _, secret := range []string{m["refresh_token"].(string), r["refresh_token"].(string)} {
		if strings.Contains(string(raw), secret) {
			t.Error("the state file holds a refresh token in clear")
		}
	}
	// Tokens expire on time, restart or not.
	e.clock.advance(2 * time.Hour)
	if _, err := e.verify(r["access_token"].(string)); err == nil {
		t.Error("an expired access token was accepted")
	}
}

func TestUnreadableStateStopsTheStart(t *testing.T) {
	e := newAS(t)
	for _, bad := range []string{"{\"version\":1,\"keys\":[", "", `{"version":99,"keys":[{"id":"a","secret":"AA=="}]}`} {
		if err := os.WriteFile(e.state, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := New(e.opts)
		if err == nil || !strings.Contains(err.Error(), e.state) {
			t.Errorf("state %q: %v, want an error naming the file", bad, err)
		}
	}
}

func TestRevokeFromTheCommandLine(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	m := e.grant(id, redirect, "write")
	other, _ := e.client()
	m2 := e.grant(other, redirect, "write")

	list, err := List(e.state)
	if err != nil || len(list) != 2 || len(list[0].Grants) != 1 || list[0].Grants[0].User != "alice" || list[0].RedirectHosts[0] != "127.0.0.1:9" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if n, err := RevokeClient(e.state, id); err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	e.clock.advance(stateCheckEvery)
	if _, err := e.verify(m["access_token"].(string)); err == nil {
		t.Error("a revoked client's token still works")
	}
	if _, err := e.verify(m2["access_token"].(string)); err != nil {
		t.Errorf("another client's token: %v", err)
	}
	if _, err := RevokeClient(e.state, id); err == nil {
		t.Error("revoking an unknown client said nothing")
	}
	if n, err := RevokeUser(e.state, "alice"); err != nil || n != 1 {
		t.Fatalf("revoke user: %d %v", n, err)
	}
	e.clock.advance(stateCheckEvery)
	if _, err := e.verify(m2["access_token"].(string)); err == nil {
		t.Error("a revoked user's token still works")
	}
}

func TestRevocationEndpoint(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	for _, kind := range []string{"refresh_token", "access_token"} {
		t.Run(kind, func(t *testing.T) {
			m := e.grant(id, redirect, "write")
			other, _ := e.client()
			// Another client cannot end it.
			if resp, _ := e.post(RevokePath, url.Values{"token": {m[kind].(string)}, "client_id": {other}}); resp.StatusCode != 200 {
				t.Fatalf("revoke by another client: %d", resp.StatusCode)
			}
			if _, err := e.verify(m["access_token"].(string)); err != nil {
				t.Fatal("another client revoked the grant")
			}
			if resp, _ := e.post(RevokePath, url.Values{"token": {m[kind].(string)}, "client_id": {id}}); resp.StatusCode != 200 {
				t.Fatalf("revoke: %d", resp.StatusCode)
			}
			if _, err := e.verify(m["access_token"].(string)); err == nil {
				t.Error("the access token works after revocation")
			}
			if status, _ := e.refresh(id, m["refresh_token"].(string)); status != 400 {
				t.Error("the refresh token works after revocation")
			}
		})
	}
	if resp, _ := e.post(RevokePath, url.Values{"token": {"unknown"}, "client_id": {id}}); resp.StatusCode != 200 {
		t.Errorf("an unknown token: %d, want 200 (RFC 7009)", resp.StatusCode)
	}
}

func TestClientsExpireAndEvict(t *testing.T) {
	e := newAS(t)
	old, _ := e.client()
	e.clock.advance(clientUnusedTTL + time.Hour)
	e.client() // any change prunes
	e.srv.state.view(func(st *State) {
		if st.Clients[old] != nil {
			t.Error("a client unused for 30 days is still registered")
		}
	})
	// Clients that hold no grant have a quota of their own: a flood of
	// registrations pushes out only registrations.
	base := e.clock.now()
	err := e.srv.state.update(func(st *State) error {
		for i := range maxIdleClients + 50 {
			id := fmt.Sprintf("idle%04d", i)
			st.Clients[id] = &Client{ID: id, LastUsed: base.Add(time.Duration(i) * time.Second)}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.state.view(func(st *State) {
		if len(st.Clients) != maxIdleClients || st.Clients["idle0000"] != nil || st.Clients[fmt.Sprintf("idle%04d", maxIdleClients+49)] == nil {
			t.Errorf("%d idle clients kept", len(st.Clients))
		}
	})
	// A full store of signed-in clients evicts the least recently used,
	// never refuses a new one.
	err = e.srv.state.update(func(st *State) error {
		for i := range maxClients + 5 {
			id := fmt.Sprintf("c%04d", i)
			at := base.Add(time.Duration(i) * time.Second)
			st.Clients[id] = &Client{ID: id, LastUsed: at}
			st.Grants["g"+id] = &Grant{ID: "g" + id, ClientID: id, User: "alice", LastUsed: at, AccessExpires: base.Add(time.Hour)}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if status, m := e.register(`{"redirect_uris":["https://a.example/cb"]}`); status != 201 {
		t.Fatalf("registration when full: %d %v", status, m)
	}
	e.srv.state.view(func(st *State) {
		if len(st.Clients) > maxClients || st.Clients["c0000"] != nil || st.Grants["gc0000"] != nil || st.Clients[fmt.Sprintf("c%04d", maxClients+4)] == nil {
			t.Errorf("%d clients; the oldest kept: %v", len(st.Clients), st.Clients["c0000"] != nil)
		}
	})
}

func TestMetadata(t *testing.T) {
	e := newAS(t)
	resp, body := e.get(MetadataPath, nil)
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"} {
		if s, _ := m[k].(string); !strings.HasPrefix(s, e.url) {
			t.Errorf("%s = %v", k, m[k])
		}
	}
	if m["authorization_response_iss_parameter_supported"] != true || m["client_id_metadata_document_supported"] != true {
		t.Errorf("metadata %v", m)
	}
	if fmt.Sprint(m["scopes_supported"]) != "[vault:read vault:write offline_access]" {
		t.Errorf("scopes_supported %v", m["scopes_supported"])
	}
}

func TestClientMetadataDocument(t *testing.T) {
	var docURL, doc string
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=60")
		io.WriteString(w, strings.ReplaceAll(doc, "SELF", docURL))
	}))
	t.Cleanup(docs.Close)
	docURL = docs.URL + "/client.json"
	e := newAS(t, func(o *Options) { o.AllowPrivateClientMetadata = true })
	redirect := "http://127.0.0.1:9/cb"

	doc = `{"client_id":"SELF","client_name":"Doc client","redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none"}`
	m := e.grant(docURL, redirect, "read")
	g, err := e.verify(m["access_token"].(string))
	if err != nil || g.ClientID != docURL || g.ClientName != "Doc client" {
		t.Fatalf("%+v %v", g, err)
	}
	if list, _ := List(e.state); len(list) != 1 || list[0].ID != docURL || !list[0].FromMetadata {
		t.Errorf("list %+v", list)
	}

	for _, tc := range []struct{ name, doc, id, want string }{
		{"another client_id", `{"client_id":"https://x.example/c","redirect_uris":["` + redirect + `"]}`, docURL + "?a", "another client_id"},
		{"redirect not listed", `{"client_id":"SELF","redirect_uris":["http://127.0.0.1:10/other"]}`, docURL + "?b", "return address"},
		{"secret", `{"client_id":"SELF","client_secret":"x","redirect_uris":["` + redirect + `"]}`, docURL + "?c", "client_secret"},
		{"no path", `{}`, docs.URL, "path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc = tc.doc
			docURL = tc.id
			resp, body := e.get(AuthorizePath, e.authorizeQuery(tc.id, redirect))
			if resp.StatusCode != 400 || !strings.Contains(body, tc.want) {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
		})
	}
}

func TestMetadataDocumentFetchIsGuarded(t *testing.T) {
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the guarded client reached a loopback server")
	}))
	t.Cleanup(docs.Close)
	e := newAS(t)
	for _, tc := range []struct{ id, want string }{
		{docs.URL + "/client.json", "could not be fetched"},
		{"http://example.com/client.json", "must be an https URL"},
		{"https://u:p@example.com/c.json", "no user name"},
		{"https://example.com/a/../c.json", ". or .."},
	} {
		resp, body := e.get(AuthorizePath, e.authorizeQuery(tc.id, "http://127.0.0.1:9/cb"))
		if resp.StatusCode != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d\n%s", tc.id, resp.StatusCode, body)
		}
	}
}

func TestPublicAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"93.184.216.34", true}, {"2606:2800:220:1:248:1893:25c8:1946", true},
		{"127.0.0.1", false}, {"::1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"fe80::1", false}, {"fc00::1", false}, {"0.0.0.0", false}, {"::", false},
		{"100.64.0.1", false}, {"::ffff:127.0.0.1", false}, {"::ffff:10.0.0.1", false}, {"64:ff9b::a00:1", false},
		{"224.0.0.1", false}, {"255.255.255.255", false},
	} {
		if got := publicAddr(mustAddr(t, tc.addr)); got != tc.want {
			t.Errorf("publicAddr(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

func TestCacheTTL(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Cache-Control": {"max-age=300"}}, 5 * time.Minute},
		{http.Header{"Cache-Control": {"public, max-age=999999"}}, docMaxAge},
		{http.Header{"Cache-Control": {"no-store, max-age=300"}}, 0},
		{http.Header{"Expires": {now.Add(time.Hour).Format(http.TimeFormat)}}, time.Hour},
		{http.Header{}, 0},
	} {
		if got := cacheTTL(tc.header, now); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestStateThatCannotBeReadTrustsNoGrant(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	m := e.grant(id, redirect, "write")
	raw, _ := os.ReadFile(e.state)
	// A newer format (or a hand edit gone wrong) after a revocation: no
	// grant passes until the file reads again.
	if _, err := RevokeClient(e.state, id); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(raw), `"version":1`, `"version":2`, 1)
	if err := os.WriteFile(e.state, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(stateCheckEvery)
	if _, err := e.verify(m["access_token"].(string)); err == nil {
		t.Error("a token was accepted while the state file could not be read")
	}
	// Moved away while running: everyone is signed out, for good.
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	id2, _ := e.client()
	m2 := e.grant(id2, redirect, "write")
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(stateCheckEvery)
	if _, err := e.verify(m2["access_token"].(string)); err == nil {
		t.Error("a token was accepted after the state file was moved away")
	}
	if status, _ := e.refresh(id2, m2["refresh_token"].(string)); status == 200 {
		t.Error("a refresh worked after the state file was moved away")
	}
}

func TestStateFileMustBeOurs(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "oauth.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := openStore(link, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a state file that is a link: %v", err)
	}
	open := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if _, err := openStore(filepath.Join(open, "oauth.json"), nil); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Errorf("a state folder anyone may write: %v", err)
	}
}

func TestRegistrationKeepsTheStateSmall(t *testing.T) {
	e := newAS(t)
	for _, body := range []string{
		`{"redirect_uris":["https://a.example/<<<<"]}`,
		`{"redirect_uris":["https://a.example/cb"],"client_name":"Claude\u001b[2K\r\u001b]52;c;ZWNobw==\u0007"}`,
		`{"redirect_uris":["https://a.example/cb"],"client_name":"evil\u202e"}`,
		`{"redirect_uris":["https://a.example/a b"]}`,
	} {
		if status, m := e.register(body); status != 400 {
			t.Errorf("%s: %d %v", body, status, m)
		}
	}
	status, _ := e.register(`{"redirect_uris":["https://a.example/cb?a=1&b=2"],"client_name":"A & B"}`)
	if status != 201 {
		t.Fatal(status)
	}
	raw, _ := os.ReadFile(e.state)
	if strings.Contains(string(raw), `\u0026`) {
		t.Error("the state file escapes & as \\u0026, six bytes for one")
	}
}

func TestTheReturnAddressIsShownWhole(t *testing.T) {
	e := newAS(t)
	status, m := e.register(`{"redirect_uris":["com.attacker://claude.ai/api/mcp/auth_callback"],"client_name":"Claude"}`)
	if status != 201 {
		t.Fatal(m)
	}
	resp, body := e.get(AuthorizePath, e.authorizeQuery(m["client_id"].(string), "com.attacker://claude.ai/api/mcp/auth_callback"))
	if resp.StatusCode != 200 || strings.Contains(body, "<strong>claude.ai</strong>") || !strings.Contains(body, "opens com.attacker: links") {
		t.Fatalf("%d\n%s", resp.StatusCode, body)
	}
}

func TestARemovedUserLosesTheGrant(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	m := e.grant(id, redirect, "write")
	// The server restarts with alice taken out of the configuration.
	authn, err := auth.New(auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.authn, e.opts.Auth = authn, authn
	e.start()
	if status, _ := e.refresh(id, m["refresh_token"].(string)); status == 200 {
		t.Error("a removed user's grant refreshed")
	}
	if list, _ := List(e.state); len(list) == 1 && len(list[0].Grants) != 0 {
		t.Errorf("the removed user's grant is still listed: %+v", list[0].Grants)
	}
}

func TestUserBackoff(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	var status int
	for range backoffFree + 1 {
		f := e.page(e.authorizeQuery(id, redirect))
		f.Set("username", "alice")
		f.Set("password", "wrong")
		resp, _ := e.post(AuthorizePath, f)
		status = resp.StatusCode
	}
	if status != http.StatusTooManyRequests {
		t.Fatalf("after %d wrong passwords from fresh pages: %d, want 429", backoffFree+1, status)
	}
	e.clock.advance(backoffMax)
	q := e.signIn(e.page(e.authorizeQuery(id, redirect)), "alice", "pw", "write")
	if q.Get("code") == "" {
		t.Fatal("no sign-in once the wait was over")
	}
}

func TestGrantLifetime(t *testing.T) {
	const lifetime = 2 * time.Hour
	e := newAS(t, func(o *Options) { o.GrantLifetime = lifetime })
	id, redirect := e.client()
	m := e.grant(id, redirect, "write")
	if m["expires_in"] != float64(3600) {
		t.Errorf("expires_in = %v, want 3600 (the token's own lifetime comes first)", m["expires_in"])
	}
	// Refreshed 90 minutes in, the new access token ends with the grant,
	// 30 minutes later, and says so.
	e.clock.advance(90 * time.Minute)
	status, m := e.refresh(id, m["refresh_token"].(string))
	if status != 200 || m["expires_in"] != float64(1800) {
		t.Fatalf("refresh within the lifetime: %d %v (want expires_in 1800)", status, m)
	}
	if _, err := e.verify(m["access_token"].(string)); err != nil {
		t.Fatalf("token within the lifetime: %v", err)
	}
	e.clock.advance(30 * time.Minute)
	if _, err := e.verify(m["access_token"].(string)); err == nil {
		t.Error("a token outlived its grant")
	}
	if status, m := e.refresh(id, m["refresh_token"].(string)); status != 400 || m["error"] != "invalid_grant" {
		t.Errorf("refresh past the lifetime: %d %v", status, m)
	}
}

func TestGrantLifetimeShortenedAppliesToOldGrants(t *testing.T) {
	e := newAS(t)
	id, redirect := e.client()
	m := e.grant(id, redirect, "write")
	e.clock.advance(48 * time.Hour)
	if status, r := e.refresh(id, m["refresh_token"].(string)); status != 200 {
		t.Fatalf("refresh: %d %v", status, r)
	} else {
		m = r
	}
	// The operator sets a one-day lifetime and restarts: the two-day-old
	// grant ends.
	e.srv.opts.GrantLifetime = 24 * time.Hour
	if _, err := e.verify(m["access_token"].(string)); err == nil || !strings.Contains(err.Error(), "grant_lifetime") {
		t.Errorf("token of a grant older than the new lifetime: %v", err)
	}
	if status, m := e.refresh(id, m["refresh_token"].(string)); status != 400 || !strings.Contains(fmt.Sprint(m["error_description"]), "grant_lifetime") {
		t.Errorf("refresh of a grant older than the new lifetime: %d %v", status, m)
	}
}
