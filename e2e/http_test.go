package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/crypto/bcrypt"
)

var commitHash = regexp.MustCompile(`commit ([0-9a-f]{7,})`)

// TestHTTPWriteThenHistory writes through mcp-go's streamable HTTP client
// and finds the commit in get_recent_changes and in git.
func TestHTTPWriteThenHistory(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"Home.md": "# Home\n"})
	srv := startHTTP(t, v)
	if srv.token == "" {
		t.Fatalf("no token printed for a loopback run without credentials:\n%s", srv.stderr.String())
	}
	s := srv.session(t, srv.token)
	out := s.ok(t, "write_file", map[string]any{"path": "notes/over-http.md", "content": "# Over HTTP\n"})
	m := commitHash.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("write_file answer names no commit: %q", out)
	}
	recent := s.ok(t, "get_recent_changes", map[string]any{})
	if !strings.Contains(recent, "MCP: write notes/over-http.md") || !strings.Contains(recent, "+# Over HTTP") {
		t.Errorf("get_recent_changes does not show the write:\n%s", recent)
	}
	if got := v.gitRun(t, "log", "-1", "--format=%h %s"); !strings.HasPrefix(got, m[1][:7]) || !strings.HasSuffix(got, "MCP: write notes/over-http.md") {
		t.Errorf("git log -1 = %q, want commit %s", got, m[1])
	}
	if err := srv.stop(t); err != nil {
		t.Errorf("server exit after SIGTERM: %v\n%s", err, srv.stderr.String())
	}
}

// TestHTTPRequiresCredential checks the transport refuses a client
// without the token, with the challenge MCP clients follow.
func TestHTTPRequiresCredential(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil)
	srv := startHTTP(t, v)
	resp, err := http.Post(srv.url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp, err = http.Get(srv.url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"healthy"`) {
		t.Errorf("health: %d %s", resp.StatusCode, body)
	}
}

// TestHTTPGracefulShutdownPushes stops the server right after a write:
// it exits cleanly and the commit is on the remote (pushed in the
// background, or by the final push of the shutdown).
func TestHTTPGracefulShutdownPushes(t *testing.T) {
	t.Parallel()
	v, remote := newRemoteVault(t, map[string]string{"Home.md": "# Home\n"})
	srv := startHTTP(t, v, withEnv("VAULTMCP_GIT_SYNC_INTERVAL=0"))
	s := srv.session(t, srv.token)
	s.ok(t, "write_file", map[string]any{"path": "last.md", "content": "written just before the shutdown\n"})
	if err := srv.stop(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.stderr.String())
	}
	if log := remoteLog(t, remote); len(log) == 0 || log[0] != "MCP: write last.md" {
		t.Errorf("remote log after shutdown = %q, want the last write on top", log)
	}
}

// TestHTTPOAuthFlow runs the whole MCP authorization flow with mcp-go's
// OAuth client: the 401 challenge, protected resource metadata,
// authorization server metadata, dynamic registration, the login page
// (a person signing in is played by plain HTTP requests), the code
// exchange with PKCE, then MCP calls with the token. A token is then
// refused for another resource (the same server reached by another
// name).
func TestHTTPOAuthFlow(t *testing.T) {
	t.Parallel()
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	v := newVault(t, map[string]string{"Journal/day.md": "# Day\n", "Private/x.md": "secret\n"})
	users := fmt.Sprintf(`[{"name": "alice", "password_hash": %q, "allow": ["Journal"]}]`, hash)
	srv := startHTTP(t, v, withEnv("VAULTMCP_HTTP_USERS="+users, "VAULTMCP_HTTP_OAUTH_ENABLED=true"))

	const redirect = "http://127.0.0.1:1/callback" // never visited: the test reads the redirect
	c, err := client.NewOAuthStreamableHttpClient(srv.url+"/mcp", transport.OAuthConfig{
		RedirectURI: redirect,
		TokenStore:  transport.NewMemoryTokenStore(),
		PKCEEnabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = c.Initialize(ctx, initializeRequest())
	if !client.IsOAuthAuthorizationRequiredError(err) {
		t.Fatalf("initialize without a token: %v, want OAuth authorization required", err)
	}
	h := client.GetOAuthHandler(err)
	if err := h.RegisterClient(ctx, "vaultmcp e2e"); err != nil {
		t.Fatalf("dynamic registration: %v", err)
	}
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	state, err := client.GenerateState()
	if err != nil {
		t.Fatal(err)
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		t.Fatalf("authorization URL: %v", err)
	}
	if !strings.HasPrefix(authURL, srv.url+"/oauth/authorize?") || !strings.Contains(authURL, "resource=") {
		t.Errorf("authorization URL %q", authURL)
	}

	// The person: opens the page, signs in (wrong password first). The
	// form carries only the signed request the page was made for; the browser
	// test (TestHTTPOAuthBrowser) does the same through Chromium.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page, err := noRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || !strings.Contains(string(body), `name="password"`) || !strings.Contains(string(body), "vaultmcp e2e") {
		t.Fatalf("login page: %d\n%s", page.StatusCode, body)
	}
	hidden := url.Values{}
	for _, m := range regexp.MustCompile(`name="(request)" value="([^"]+)"`).FindAllStringSubmatch(string(body), -1) {
		hidden.Set(m[1], m[2])
	}
	signIn := func(password string) (*http.Response, string) {
		form := url.Values{"request": {hidden.Get("request")}, "username": {"alice"}, "password": {password}, "access": {"write"}, "action": {"allow"}}
		resp, err := noRedirect.PostForm(srv.url+"/oauth/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	if resp, b := signIn("wrong"); resp.StatusCode != 200 || !strings.Contains(b, "not right") {
		t.Errorf("wrong password: %d\n%s", resp.StatusCode, b)
	}
	resp, _ := signIn("s3cret pass")
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc.String(), redirect) {
		t.Fatalf("sign in: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if loc.Query().Get("state") != state || loc.Query().Get("code") == "" || loc.Query().Get("iss") != srv.url {
		t.Fatalf("redirect %q lacks the state, a code or the issuer", loc)
	}
	if err := h.ProcessAuthorizationResponse(ctx, loc.Query().Get("code"), state, verifier); err != nil {
		t.Fatalf("code exchange: %v", err)
	}

	if _, err := c.Initialize(ctx, initializeRequest()); err != nil {
		t.Fatalf("initialize with the token: %v", err)
	}
	s := &session{c: c, vault: v}
	if out := s.ok(t, "read_file", map[string]any{"path": "Journal/day.md"}); out != "# Day\n" {
		t.Errorf("read_file = %q", out)
	}
	// The token carries alice's scope.
	if msg := s.fail(t, "read_file", map[string]any{"path": "Private/x.md"}); !strings.Contains(msg, "Access denied") {
		t.Errorf("alice reading Private: %q", msg)
	}

	// Audience: the token is for this URL's /mcp, not for another name
	// of the same server.
	tok, err := h.GetAuthorizationHeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(srv.url, "127.0.0.1", "localhost", 1)
	req, _ := http.NewRequest("POST", other+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", tok)
	req.Header.Set("Content-Type", "application/json")
	wrong, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	wrong.Body.Close()
	if wrong.StatusCode != 401 {
		t.Errorf("token used for another resource: %d, want 401", wrong.StatusCode)
	}

	// Metadata documents, as discovery fetched them.
	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"} {
		resp, err := http.Get(srv.url + p)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if resp.StatusCode != 200 || doc == nil {
			t.Errorf("%s: %d %v", p, resp.StatusCode, doc)
		}
	}
}

// runTS runs an e2e/ts script with node and decodes its JSON report,
// failing the test on any error.
func runTS(t *testing.T, ctx context.Context, env []string, report any, script string, args ...string) {
	t.Helper()
	if err := tryTS(ctx, env, report, script, args...); err != nil {
		t.Fatal(err)
	}
}

// tryTS is runTS returning the error, for a script run beside the test's
// own goroutine.
func tryTS(ctx context.Context, env []string, report any, script string, args ...string) error {
	node, err := exec.LookPath("node")
	if err != nil {
		return errors.New("node not found: install Node.js 18 or later (make e2e-deps installs it on Debian)")
	}
	if _, err := os.Stat(filepath.Join("ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		return errors.New("the MCP TypeScript SDK is not installed in e2e/ts/node_modules: run make e2e-deps (npm ci --prefix e2e/ts)")
	}
	path, err := filepath.Abs(filepath.Join("ts", script))
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, node, append([]string{path}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if err := json.Unmarshal(stdout.Bytes(), report); err != nil {
		return fmt.Errorf("%s: report is not JSON (%v, run: %v):\n%s\n%s", script, err, runErr, stdout.String(), stderr.String())
	}
	if runErr != nil {
		return fmt.Errorf("%s failed (%v):\n%s\nreport: %s", script, runErr, stderr.String(), stdout.String())
	}
	return nil
}

// TestHTTPTypeScriptSDK drives the HTTP transport with the official
// TypeScript SDK's StreamableHTTPClientTransport: a write, then its
// commit in get_recent_changes, then the session ended with DELETE.
func TestHTTPTypeScriptSDK(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"Home.md": "# Home\n"})
	srv := startHTTP(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var report struct {
		OK        bool   `json:"ok"`
		SessionID string `json:"sessionId"`
	}
	runTS(t, ctx, os.Environ(), &report, "http-client.mjs", srv.url, srv.token)
	if !report.OK || report.SessionID == "" {
		t.Errorf("report: %+v", report)
	}
	if got := v.gitRun(t, "log", "-1", "--format=%s"); got != "MCP: write ts-http/note.md" {
		t.Errorf("last commit %q", got)
	}
}

// TestHTTPRESTExamples sends the REST API's documented requests (the
// curl examples of docs/http.md, same headers and bodies) to the binary: login
// for a JWT, then the concept endpoints with it.
func TestHTTPRESTExamples(t *testing.T) {
	t.Parallel()
	hash, err := bcrypt.GenerateFromPassword([]byte("your_secure_password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	v := newVault(t, map[string]string{
		"concepts/regression.md": "---\nprefLabel: Regression Analysis\ndefinition: Statistical method for modeling relationships between variables\nnotation: ML.REG.001\n" +
			"broader: \"[[supervised_learning]]\"\nnarrower: [\"[[linear_regression]]\"]\n---\n# Regression Analysis\n\nRegression is a statistical method...\n",
		"concepts/supervised_learning.md": "---\nprefLabel: Supervised Learning\ndefinition: ML paradigm with labeled training data\n---\n# Supervised Learning\n",
		"concepts/linear_regression.md":   "---\nprefLabel: Linear Regression\n---\n# Linear Regression\n",
		"concepts/neural_network.md":      "---\nprefLabel: Neural Network\ndefinition: Computing system inspired by biological neural networks\n---\n",
	})
	users := fmt.Sprintf(`[{"name": "admin", "password_hash": %q}]`, hash)
	srv := startHTTP(t, v, withEnv("VAULTMCP_HTTP_USERS="+users))
	post := func(path, auth, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	status, login := post("/api/auth/login", "", `{
    "username": "admin",
    "password": "your_secure_password"
  }`)
	jwt, _ := login["access_token"].(string)
	if status != 200 || jwt == "" || login["token_type"] != "bearer" || login["expires_in"] != float64(1800) {
		t.Fatalf("login: %d %v", status, login)
	}
	status, c := post("/api/concept", jwt, `{
    "concept_id": "regression",
    "include_relations": true
  }`)
	if status != 200 || c["id"] != "regression" || c["notation"] != "ML.REG.001" {
		t.Errorf("concept: %d %v", status, c)
	}
	status, x := post("/api/context/expand", jwt, `{
    "concept_id": "regression",
    "max_depth": 2,
    "include_content": true
  }`)
	focus, _ := x["focus_concept"].(map[string]any)
	if status != 200 || focus == nil || !strings.Contains(fmt.Sprint(focus["content"]), "Regression is a statistical method") {
		t.Errorf("expand: %d %v", status, x)
	}
	status, sr := post("/api/search", jwt, `{
    "query": "neural network",
    "limit": 10
  }`)
	if status != 200 || sr["count"] != float64(1) {
		t.Errorf("search: %d %v", status, sr)
	}
	req, _ := http.NewRequest("GET", srv.url+"/api/statistics", nil)
	req.Header.Set("Authorization", "Bearer "+jwt)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if resp.StatusCode != 200 || st["total_concepts"] != float64(4) || st["vault_path"] != filepath.Base(v.Root) {
		t.Errorf("statistics: %d %v", resp.StatusCode, st)
	}
}

// TestHTTPNotificationOverSSE subscribes to a note with mcp-go's client,
// whose session listens on its SSE stream (GET /mcp), and changes the
// note behind the server's back: the resources/updated notification
// arrives on the stream. The change is repeated until it does, since the
// client opens its stream on its own after initialize.
func TestHTTPNotificationOverSSE(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"Home.md": "# Home\n"})
	srv := startHTTP(t, v)
	c, err := client.NewStreamableHttpClient(srv.url+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + srv.token}),
		//lint:ignore SA1019 the SSE stream (GET /mcp) of protocol 2025-06-18 is what this test is about
		transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	got := make(chan mcp.JSONRPCNotification, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourceUpdated {
			got <- n
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := initializeRequest()
	req.Params.ProtocolVersion = "2025-06-18"
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	const uri = "vault:///Home.md"
	var sub mcp.SubscribeRequest
	sub.Params.URI = uri
	//lint:ignore SA1019 resources/subscribe is how protocol 2025-06-18 clients subscribe
	if err := c.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(callTimeout)
	for i := 0; ; i++ {
		v.write(t, "Home.md", fmt.Sprintf("# Home\n\nedited outside the server, %d\n", i))
		select {
		case n := <-got:
			if u, _ := n.Params.AdditionalFields["uri"].(string); u != uri {
				t.Errorf("notification for %q, want %q", u, uri)
			}
			return
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no resources/updated notification arrived:\n%s", srv.stderr.String())
		}
	}
}

// TestHTTPTypeScriptSDKNotification subscribes to a note with the
// TypeScript SDK's StreamableHTTPClientTransport, which listens on the
// session's SSE stream, and changes the note on disk until the SDK client
// reports the resources/updated notification.
func TestHTTPTypeScriptSDKNotification(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"Home.md": "# Home\n"})
	srv := startHTTP(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ready := filepath.Join(t.TempDir(), "listening")
	const uri = "vault:///Home.md"
	var report struct {
		OK           bool `json:"ok"`
		Notification struct {
			Method string `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		} `json:"notification"`
	}
	done := make(chan error, 1)
	go func() {
		done <- tryTS(ctx, append(os.Environ(), "VAULTMCP_NOTIFY_URI="+uri), &report, "http-client.mjs", srv.url, srv.token, ready)
	}()
	// Once the client says it listens, change the note until it hears.
	for i := 0; ; i++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if !report.OK || report.Notification.Method != "notifications/resources/updated" || report.Notification.Params.URI != uri {
				t.Errorf("report: %+v", report)
			}
			return
		case <-ctx.Done():
			t.Fatalf("the TypeScript client heard nothing:\n%s", srv.stderr.String())
		case <-time.After(300 * time.Millisecond):
		}
		if _, err := os.Stat(ready); err == nil {
			v.write(t, "Home.md", fmt.Sprintf("# Home\n\nedited outside the server, %d\n", i))
		}
	}
}
