package httpserver

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"vaultmcp/internal/auth"
)

// grants is an OAuth verifier with fixed tokens.
type grants map[string]auth.Grant

func (g grants) VerifyAccessToken(_ context.Context, tok string) (auth.Grant, error) {
	if gr, ok := g[tok]; ok {
		return gr, nil
	}
	return auth.Grant{}, errors.New("unknown")
}

// fakeAS mounts a stand-in for the authorization server's endpoints.
type fakeAS struct{}

func (fakeAS) Issuer(r *http.Request) string { return "http://" + r.Host }
func (fakeAS) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
}
func (fakeAS) Paths() []string           { return []string{"/oauth/authorize", "/oauth/token"} }
func (fakeAS) ScopesSupported() []string { return []string{"vault:read", "vault:write"} }

func TestReadOnlyGrantIsChallengedToStepUp(t *testing.T) {
	e := newEnv(t)
	e.srv.opts.Auth.SetOAuth(grants{
		"ro": {User: "admin", ClientID: "c", ClientName: "Connector", ReadOnly: true},
		"rw": {User: "admin", ClientID: "c", ClientName: "Connector"},
	})
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"path":"Journal/x.md","content":"x"}}}`
	}
	for _, tc := range []struct {
		name, tok, method, path, body string
		status                        int
	}{
		{"MCP write, read-only grant", "ro", "POST", "/mcp", call("write_file"), http.StatusForbidden},
		{"MCP write in a batch", "ro", "POST", "/mcp", "[" + call("read_file") + "," + call("delete_file") + "]", http.StatusForbidden},
		{"REST write, read-only grant", "ro", "PUT", "/api/notes/Journal/x.md", `{"content":"x"}`, http.StatusForbidden},
		{"REST delete, read-only grant", "ro", "DELETE", "/api/notes/Journal/2024-01-01.md", "", http.StatusForbidden},
		{"MCP read, read-only grant", "ro", "POST", "/mcp", initialize, http.StatusOK},
		{"REST read, read-only grant", "ro", "GET", "/api/notes/Journal/2024-01-01.md", "", http.StatusOK},
		{"unknown tool", "ro", "POST", "/mcp", call("no_such_tool"), http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, m := e.do(tc.method, tc.path, tc.body, mcpHeaders(bearer(tc.tok)...)...)
			challenge := resp.Header.Get("WWW-Authenticate")
			if tc.status == http.StatusForbidden {
				if resp.StatusCode != 403 || !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, `scope="vault:write"`) ||
					!strings.Contains(challenge, "resource_metadata=") {
					t.Fatalf("%d %q %v", resp.StatusCode, challenge, m)
				}
				return
			}
			if resp.StatusCode == 403 || strings.Contains(challenge, "insufficient_scope") {
				t.Fatalf("%d %q %v", resp.StatusCode, challenge, m)
			}
		})
	}
	// The body is read to tell only under the body limit.
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"` + strings.Repeat("a", 100<<10) + `"}}}`
	if resp, _ := e.do("POST", "/mcp", big, mcpHeaders(bearer("ro")...)...); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit from a read-only grant: %d, want 413", resp.StatusCode)
	}
	if _, err := e.srv.opts.Auth.Verify(context.Background(), "rw"); err != nil {
		t.Fatal(err)
	}
	// The full grant writes.
	resp, m := e.do("PUT", "/api/notes/Journal/x.md", `{"content":"x"}`, bearer("rw")...)
	if resp.StatusCode >= 300 {
		t.Fatalf("write with a full grant: %d %v", resp.StatusCode, m)
	}
}

func TestOAuthEndpointsTakeAnyOrigin(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.OAuth = fakeAS{} })
	// The sign-in form arrives with Origin: null under the page's
	// no-referrer policy; it is protected by its own token instead.
	resp, m := e.do("POST", "/oauth/authorize", "page=x", "Origin", "null", "Content-Type", "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("sign-in form with Origin null: %d %v", resp.StatusCode, m)
	}
	resp, _ = e.do("OPTIONS", "/oauth/token", "", "Origin", "https://inspector.example", "Access-Control-Request-Method", "POST")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight of the token endpoint: %d %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	// Elsewhere a foreign origin is still refused.
	if resp, _ := e.do("POST", "/mcp", initialize, "Origin", "null"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("/mcp with Origin null: %d", resp.StatusCode)
	}
	resp, m = e.do("GET", "/.well-known/oauth-protected-resource/mcp", "")
	if resp.StatusCode != 200 || m["scopes_supported"] == nil {
		t.Fatalf("resource metadata: %d %v", resp.StatusCode, m)
	}
}
