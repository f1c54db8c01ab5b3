package oauth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"vaultmcp/vault/access"
)

var readOnlyRules = access.Rules{ReadOnly: true}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// FuzzCheckRedirect: an accepted redirect URI is an absolute URL of an
// allowed scheme, without a fragment or user info, and plain http only to
// loopback.
func FuzzCheckRedirect(f *testing.F) {
	for _, s := range []string{"https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:1234/cb", "http://localhost/cb",
		"com.example.app:/cb", "javascript:alert(1)", "http://evil.example/", "blob:https://x/y", "HTTP://127.0.0.1/", "https://a/#x", "cursor://x/y"} {
		f.Add(s, "native")
		f.Add(s, "web")
	}
	f.Fuzz(func(t *testing.T, raw, appType string) {
		if checkRedirect(raw, appType, []string{"cursor"}) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || !u.IsAbs() || u.Fragment != "" || u.User != nil || len(raw) > maxURILen {
			t.Fatalf("accepted %q", raw)
		}
		switch s := strings.ToLower(u.Scheme); {
		case s == "https":
		case s == "http":
			if !loopbackHost(u.Hostname()) || appType != "native" {
				t.Fatalf("accepted http redirect %q for %s", raw, appType)
			}
		case strings.Contains(s, ".") || s == "cursor":
			if appType != "native" {
				t.Fatalf("accepted private-use %q for %s", raw, appType)
			}
		default:
			t.Fatalf("accepted scheme %q", u.Scheme)
		}
	})
}

// FuzzRegistration: any body gets an answer (no panic, never a 5xx), and
// what is accepted keeps the limits.
func FuzzRegistration(f *testing.F) {
	for _, s := range []string{`{"redirect_uris":["http://127.0.0.1/cb"]}`, `{"redirect_uris":["https://a/cb"],"client_name":"x","token_endpoint_auth_method":"client_secret_post"}`,
		`{"redirect_uris":[]}`, `[]`, `{"redirect_uris":["x"],"application_type":"web"}`, `{"redirect_uris":null}`, `{"client_name":7}`} {
		f.Add(s)
	}
	e := newASForFuzz(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		e.srv.register(rec, httptest.NewRequest(http.MethodPost, RegisterPath, strings.NewReader(body)))
		if rec.Code >= 500 {
			t.Fatalf("%d for %q", rec.Code, body)
		}
		if rec.Code != http.StatusCreated {
			return
		}
		var reg registration
		if err := json.Unmarshal(rec.Body.Bytes(), &reg); err != nil {
			t.Fatal(err)
		}
		if len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > maxRedirectURIs || len([]rune(reg.ClientName)) > maxNameLen {
			t.Fatalf("accepted %q", body)
		}
		for _, u := range reg.RedirectURIs {
			if checkRedirect(u, reg.ApplicationType, nil) != nil {
				t.Fatalf("accepted redirect %q", u)
			}
		}
	})
}

// FuzzAuthorizeQuery: an authorization request, whatever its query, is
// answered with a page and never with a redirect (only the person's
// action on the page leads back to the client).
func FuzzAuthorizeQuery(f *testing.F) {
	e := newASForFuzz(f)
	id, redirect := e.client()
	f.Add(e.authorizeQuery(id, redirect).Encode())
	f.Add("client_id=" + id + "&redirect_uri=" + url.QueryEscape(redirect) + "&response_type=token")
	f.Add("client_id=" + id + "&client_id=x")
	f.Add("%zz&a=;b")
	f.Fuzz(func(t *testing.T, query string) {
		rec := httptest.NewRecorder()
		e.srv.authorize(rec, httptest.NewRequest(http.MethodGet, "http://vault.test"+AuthorizePath+"?"+sanitizeQuery(query), nil))
		if rec.Code >= 300 && rec.Code < 400 || rec.Code >= 500 || rec.Header().Get("Location") != "" {
			t.Fatalf("%d Location=%q for %q", rec.Code, rec.Header().Get("Location"), query)
		}
	})
}

// FuzzSignInForm: whatever the form holds, a sign-in succeeds only with
// the page's own token and the right password.
func FuzzSignInForm(f *testing.F) {
	e := newASForFuzz(f)
	id, redirect := e.client()
	f.Add("request=x.y&username=alice&password=pw")
	f.Add("username=alice&password=pw&action=deny")
	f.Add("%zz")
	f.Fuzz(func(t *testing.T, form string) {
		te := *e
		te.t = t
		page := te.page(e.authorizeQuery(id, redirect))
		req := httptest.NewRequest(http.MethodPost, "http://vault.test"+AuthorizePath, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		e.srv.authorize(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%d for %q", rec.Code, form)
		}
		if rec.Code == http.StatusSeeOther {
			parsed, _ := url.ParseQuery(form)
			if parsed.Get("request") != page.Get("request") {
				t.Fatalf("signed in without the page's token: %q", form)
			}
		}
	})
}

// sanitizeQuery keeps a fuzzed query a valid request target.
func sanitizeQuery(q string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == '#' || r > '~' {
			return -1
		}
		return r
	}, q)
}

func newASForFuzz(f *testing.F) *asEnv { return newAS(f) }
