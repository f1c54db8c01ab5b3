package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"vaultmcp/internal/auth"
)

// asEnv is the authorization server alone on a loopback listener.
type asEnv struct {
	t   *testing.T
	srv *Server
	url string
	c   *http.Client // follows no redirects
}

func newAS(t *testing.T) *asEnv {
	t.Helper()
	hash, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	authn, err := auth.New(auth.Options{Users: []auth.User{{Name: "alice", PasswordHash: string(hash)}}})
	if err != nil {
		t.Fatal(err)
	}
	e := &asEnv{t: t, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	e.srv, err = New(Options{Auth: authn, Base: func(r *http.Request) string { return "http://" + r.Host }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	authn.SetOAuth(e.srv)
	ts := httptest.NewServer(e.srv.Handler())
	t.Cleanup(ts.Close)
	e.url = ts.URL
	return e
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

func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestRegistration(t *testing.T) {
	e := newAS(t)
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"redirect_uris": ["https://claude.ai/api/mcp/auth_callback"], "client_name": "Claude"}`, 201},
		{`{"redirect_uris": ["http://127.0.0.1:33418/callback"], "token_endpoint_auth_method": "client_secret_post"}`, 201},
		{`{"redirect_uris": ["cursor://anysphere.cursor-retrieval/oauth/callback"]}`, 201},
		{`{"redirect_uris": []}`, 400},
		{`{"redirect_uris": ["http://evil.example/cb"]}`, 400},
		{`{"redirect_uris": ["javascript:alert(1)"]}`, 400},
		{`{"redirect_uris": ["https://x.example/cb#frag"]}`, 400},
		{`{"redirect_uris": ["https://x.example/cb"], "grant_types": ["client_credentials"]}`, 400},
		{`{"redirect_uris": ["https://x.example/cb"], "token_endpoint_auth_method": "private_key_jwt"}`, 400},
		{`not json`, 400},
	} {
		status, m := e.register(c.body)
		if status != c.want {
			t.Errorf("%s: %d %v, want %d", c.body, status, m, c.want)
		}
		if status == 201 && (m["client_id"] == "" || m["token_endpoint_auth_method"] == nil) {
			t.Errorf("%s: %v", c.body, m)
		}
	}
	_, m := e.register(`{"redirect_uris": ["https://x.example/cb"], "token_endpoint_auth_method": "client_secret_basic"}`)
	if m["client_secret"] == nil || m["client_secret_expires_at"] != float64(0) {
		t.Errorf("confidential client without a secret: %v", m)
	}
}

// authorize walks a public client through the login page and returns the
// redirect the sign-in produced.
func (e *asEnv) authorize(q url.Values) *http.Response {
	e.t.Helper()
	page, err := e.c.Get(e.url + AuthorizePath + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != 200 {
		return page
	}
	form := url.Values{"username": {"alice"}, "password": {"pw"}}
	resp, err := e.c.PostForm(e.url+AuthorizePath+"?"+q.Encode(), form)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestAuthorizationCode(t *testing.T) {
	e := newAS(t)
	_, reg := e.register(`{"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "t"}`)
	id := reg["client_id"].(string)
	verifier := strings.Repeat("v", 50)
	resource := e.url + "/mcp"
	base := url.Values{
		"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1:9/cb"},
		"state": {"state-0123456789"}, "code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"},
		"resource": {resource}, "scope": {Scope},
	}
	with := func(k, v string) url.Values {
		q := url.Values{}
		for kk, vv := range base {
			q[kk] = vv
		}
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return q
	}
	// Refused: no PKCE, plain PKCE, a foreign resource, an unknown client.
	for name, q := range map[string]url.Values{
		"no PKCE":          with("code_challenge", ""),
		"plain PKCE":       with("code_challenge_method", "plain"),
		"foreign resource": with("resource", "https://other.example/mcp"),
		"unknown client":   with("client_id", "nobody"),
		"other redirect":   with("redirect_uri", "http://127.0.0.1:9/other"),
	} {
		resp := e.authorize(q)
		loc := resp.Header.Get("Location")
		if resp.StatusCode == http.StatusSeeOther || resp.StatusCode == http.StatusFound {
			if u, _ := url.Parse(loc); u == nil || u.Query().Get("code") != "" || u.Query().Get("error") == "" {
				t.Errorf("%s: redirected with %q", name, loc)
			}
		} else if resp.StatusCode < 400 {
			t.Errorf("%s: %d", name, resp.StatusCode)
		}
	}

	resp := e.authorize(base)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	code := loc.Query().Get("code")
	if code == "" || loc.Query().Get("state") != "state-0123456789" {
		t.Fatalf("sign-in redirect %q (%d)", resp.Header.Get("Location"), resp.StatusCode)
	}
	exchange := func(v string) (int, map[string]any) {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:9/cb"},
			"client_id": {id}, "code_verifier": {v}, "resource": {resource}}
		r, err := e.c.PostForm(e.url+TokenPath, form)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		return r.StatusCode, m
	}
	if status, m := exchange(strings.Repeat("w", 50)); status != 400 {
		t.Errorf("wrong code_verifier: %d %v", status, m)
	}
	// The failed exchange spent the code. Sign in again.
	resp = e.authorize(base)
	loc, _ = url.Parse(resp.Header.Get("Location"))
	code = loc.Query().Get("code")
	status, tok := exchange(verifier)
	if status != 200 || tok["access_token"] == nil || tok["refresh_token"] == nil {
		t.Fatalf("token: %d %v", status, tok)
	}
	access := tok["access_token"].(string)
	ctx := auth.WithResource(context.Background(), resource)
	if user, err := e.srv.VerifyAccessToken(ctx, access); err != nil || user != "alice" {
		t.Errorf("verify: %q %v", user, err)
	}
	if _, err := e.srv.VerifyAccessToken(auth.WithResource(context.Background(), "https://other.example/mcp"), access); err == nil {
		t.Error("a token was accepted for another resource")
	}
	if _, err := e.srv.VerifyAccessToken(ctx, tok["refresh_token"].(string)); err == nil {
		t.Error("a refresh token was accepted as an access token")
	}
	// A refresh gives a new access token for the same resource.
	r, err := e.c.PostForm(e.url+TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}, "client_id": {id}})
	if err != nil {
		t.Fatal(err)
	}
	var refreshed map[string]any
	_ = json.NewDecoder(r.Body).Decode(&refreshed)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("refresh: %d %v", r.StatusCode, refreshed)
	}
	if _, err := e.srv.VerifyAccessToken(ctx, refreshed["access_token"].(string)); err != nil {
		t.Errorf("refreshed token: %v", err)
	}
}

func TestMetadata(t *testing.T) {
	e := newAS(t)
	resp, err := http.Get(e.url + MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	if m["issuer"] != e.url || m["registration_endpoint"] != e.url+RegisterPath || m["code_challenge_methods_supported"].([]any)[0] != "S256" {
		t.Errorf("metadata: %v", m)
	}
}

// FuzzCheckRedirect checks the redirect URIs registration accepts: never
// plain http beyond loopback, never script or data URLs, never a
// fragment.
func FuzzCheckRedirect(f *testing.F) {
	for _, s := range []string{"https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:9/cb", "http://evil.example/cb",
		"javascript:alert(1)", "JavaScript:x", "cursor://cb", "https://x#f", "http://localhost.evil.example/cb", "http://[::1]:8/cb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkRedirect(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("accepted %q, which does not parse", raw)
		}
		host := strings.ToLower(u.Hostname())
		switch scheme := strings.ToLower(u.Scheme); {
		case scheme == "http" && host != "localhost" && host != "127.0.0.1" && host != "::1":
			t.Fatalf("accepted plain http to %q", u.Hostname())
		case scheme == "javascript" || scheme == "data" || scheme == "file" || scheme == "vbscript" || scheme == "":
			t.Fatalf("accepted %q", raw)
		case u.Fragment != "":
			t.Fatalf("accepted a fragment: %q", raw)
		}
	})
}
