package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/crypto/bcrypt"

	"vaultmcp/gitsync"
	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/index"
)

// env is a server over a real vault (index, git history) on a loopback
// listener, with one credential of each kind.
type env struct {
	t      testing.TB
	root   string
	url    string
	srv    *Server
	clock  *clock
	audit  *syncBuffer
	logs   *syncBuffer       // everything the server logs, at debug level
	tokens map[string]string // name -> token
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const password = "correct horse"

type envOption func(*Options)

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range map[string]string{
		"Home.md":                        "# Home\n[[2024-01-01]]\n",
		"Journal/2024-01-01.md":          "# Day\n",
		"Private/diary.md":               "SECRETWORD\n",
		"Journal/regression.md":          "---\nprefLabel: Regression Analysis\ndefinition: Statistical method for modeling relationships between variables\nbroader: \"[[supervised_learning]]\"\n---\n# Regression Analysis\n\nRegression is a statistical method.\n",
		"Journal/supervised_learning.md": "---\nprefLabel: Supervised Learning\ndefinition: ML paradigm with labeled training data\n---\n# Supervised Learning\n",
		"Private/secret_concept.md":      "---\nprefLabel: Secret Concept\nrelated: \"[[regression]]\"\n---\nSECRETWORD\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "initial")

	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	ctx := context.Background()
	repo, err := gitsync.Open(ctx, gitsync.Options{Dir: root, SyncInterval: -1, NoPush: true, Locker: v.Locker(), Changed: ix.Refresh, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	deps := tools.Deps{Vault: v, Index: ix, Git: repo, Logger: logger}
	s, err := mcpserver.New(deps, "test")
	if err != nil {
		t.Fatal(err)
	}

	e := &env{t: t, root: root, clock: &clock{t: time.Now()}, audit: &syncBuffer{}, logs: logs, tokens: map[string]string{}}
	var toks []auth.Token
	for name, rules := range map[string]access.Rules{
		"full":     {},
		"readonly": {ReadOnly: true},
		"journal":  {Allow: []string{"Journal"}},
	} {
		tok, hash, err := auth.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		e.tokens[name] = tok
		toks = append(toks, auth.Token{Name: name, Hash: hash, Rules: rules})
	}
	pwHash, _ := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	authn, err := auth.New(auth.Options{
		Tokens:    toks,
		Users:     []auth.User{{Name: "admin", PasswordHash: string(pwHash)}},
		JWTSecret: []byte("test secret of the server, 32 bytes"), Issuer: "vaultmcp", Audience: "vaultmcp",
		Now: e.clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{
		MCP: s, Deps: deps, Auth: authn, Audit: audit.New(e.audit),
		CORSOrigins: []string{"http://localhost:5678"}, MaxBodyBytes: 64 << 10,
		Version: "1.2.3", Logger: logger, Now: e.clock.now,
	}
	for _, opt := range opts {
		opt(&o)
	}
	e.srv, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.SetLoopback(true)
	ts := httptest.NewServer(e.srv.Handler())
	t.Cleanup(ts.Close)
	e.url = ts.URL
	return e
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// do sends a request; headers are name/value pairs.
func (e *env) do(method, path, body string, headers ...string) (*http.Response, map[string]any) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp, m
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// mcpHeaders are what a streamable HTTP client sends with a POST.
func mcpHeaders(extra ...string) []string {
	return append([]string{"Accept", "application/json, text/event-stream"}, extra...)
}

func TestUnauthorized(t *testing.T) {
	e := newEnv(t)
	login, body := e.do("POST", "/api/auth/login", `{"username": "admin", "password": "`+password+`"}`)
	if login.StatusCode != 200 || body["token_type"] != "bearer" || body["expires_in"] != float64(1800) {
		t.Fatalf("login: %d %v", login.StatusCode, body)
	}
	jwtTok, _ := body["access_token"].(string)
	wrongAud, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject: "admin", Issuer: "vaultmcp", Audience: jwt.ClaimStrings{"someone-else"},
		IssuedAt: jwt.NewNumericDate(e.clock.now()), ExpiresAt: jwt.NewNumericDate(e.clock.now().Add(time.Hour)),
	}).SignedString([]byte("test secret of the server, 32 bytes"))

	// The JWT works now, on /mcp and /api alike.
	if resp, _ := e.do("POST", "/mcp", initialize, mcpHeaders(bearer(jwtTok)...)...); resp.StatusCode != 200 {
		t.Fatalf("initialize with the login JWT: %d", resp.StatusCode)
	}
	if resp, _ := e.do("GET", "/api/notes/Home.md", "", bearer(jwtTok)...); resp.StatusCode != 200 {
		t.Fatalf("GET a note with the login JWT: %d", resp.StatusCode)
	}
	e.clock.add(31 * time.Minute)
	for name, headers := range map[string][]string{
		"no token":       nil,
		"bad token":      bearer(auth.TokenPrefix + "nonsense"),
		"expired JWT":    bearer(jwtTok),
		"wrong audience": bearer(wrongAud),
		"not bearer":     {"Authorization", "Basic YWRtaW46eA=="},
	} {
		for _, path := range []string{"/mcp", "/api/notes/Home.md"} {
			method, body := "GET", ""
			if path == "/mcp" {
				method, body = "POST", initialize
			}
			resp, m := e.do(method, path, body, mcpHeaders(headers...)...)
			challenge := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != 401 || !strings.HasPrefix(challenge, "Bearer ") ||
				!strings.Contains(challenge, `resource_metadata="`+e.url+`/.well-known/oauth-protected-resource/mcp"`) {
				t.Errorf("%s on %s: %d, WWW-Authenticate %q", name, path, resp.StatusCode, challenge)
			}
			if m["detail"] == nil {
				t.Errorf("%s on %s: no detail in %v", name, path, m)
			}
		}
	}
	if resp, m := e.do("POST", "/api/auth/login", `{"username": "admin", "password": "wrong"}`); resp.StatusCode != 401 || m["detail"] == nil ||
		!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("wrong password: %d %v", resp.StatusCode, m)
	}
	if resp, _ := e.do("GET", "/health", ""); resp.StatusCode != 200 {
		t.Errorf("health needs no credential: %d", resp.StatusCode)
	}
}

func TestLoginRateLimit(t *testing.T) {
	e := newEnv(t)
	for i := range 2 {
		resp, _ := e.do("POST", "/api/auth/login", `{"username": "admin", "password": "wrong"}`)
		if resp.StatusCode != 401 || resp.Header.Get("X-RateLimit-Limit") != "5" {
			t.Fatalf("login %d: %d, limit header %q", i, resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"))
		}
	}
	resp, body := e.do("POST", "/api/auth/login", `{"username": "admin", "password": "`+password+`"}`)
	if resp.StatusCode != 429 || body["error"] != "Rate limit exceeded" || body["detail"] != "5 per 1 minute" {
		t.Fatalf("third login: %d %v", resp.StatusCode, body)
	}
	h := resp.Header
	if h.Get("X-RateLimit-Limit") != "5" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") == "" || h.Get("Retry-After") == "" {
		t.Errorf("headers: %v", h)
	}
	e.clock.add(12 * time.Second) // 5 a minute: a new login every 12 s
	if resp, _ := e.do("POST", "/api/auth/login", `{"username": "admin", "password": "`+password+`"}`); resp.StatusCode != 200 {
		t.Errorf("after waiting: %d", resp.StatusCode)
	}
}

func TestAPIRateLimit(t *testing.T) {
	e := newEnv(t)
	var last *http.Response
	for range 11 {
		last, _ = e.do("GET", "/api/notes/Home.md", "", bearer(e.tokens["full"])...)
	}
	if last.StatusCode != 429 || last.Header.Get("X-RateLimit-Limit") != "60" {
		t.Errorf("11th call in a burst of 10: %d %v", last.StatusCode, last.Header)
	}
	// Another credential has its own bucket.
	if resp, _ := e.do("GET", "/api/notes/Home.md", "", bearer(e.tokens["readonly"])...); resp.StatusCode != 200 {
		t.Errorf("other token: %d", resp.StatusCode)
	}
}

// mcpClient is mcp-go's streamable HTTP client with a token.
func (e *env) mcpClient(tok string) *client.Client {
	e.t.Helper()
	c, err := client.NewStreamableHttpClient(e.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		e.t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "0"}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, req); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func TestScopedTokens(t *testing.T) {
	e := newEnv(t)
	head := git(t, e.root, "rev-parse", "HEAD")
	ro := e.mcpClient(e.tokens["readonly"])
	if text, isErr := callTool(t, ro, "write_file", map[string]any{"path": "Journal/new.md", "content": "x"}); !isErr || !strings.Contains(text, "read-only") {
		t.Errorf("read-only token's write_file: %v %s", isErr, text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := ro.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "write_file" || tool.Name == "delete_file" {
			t.Errorf("read-only token sees %s in tools/list", tool.Name)
		}
	}
	if resp, m := e.do("PUT", "/api/notes/Journal/new.md", `{"content": "x"}`, bearer(e.tokens["readonly"])...); resp.StatusCode != 403 {
		t.Errorf("read-only PUT: %d %v", resp.StatusCode, m)
	}
	if resp, _ := e.do("DELETE", "/api/notes/Home.md", "", bearer(e.tokens["readonly"])...); resp.StatusCode != 403 {
		t.Errorf("read-only DELETE: %d", resp.StatusCode)
	}

	j := e.mcpClient(e.tokens["journal"])
	for _, p := range []string{"Private/diary.md", "Home.md"} {
		if text, isErr := callTool(t, j, "read_file", map[string]any{"path": p}); !isErr || !strings.Contains(text, "Access denied") {
			t.Errorf("journal token reads %s: %v %s", p, isErr, text)
		}
		if resp, _ := e.do("GET", "/api/notes/"+p, "", bearer(e.tokens["journal"])...); resp.StatusCode != 403 {
			t.Errorf("journal token GET %s: %d", p, resp.StatusCode)
		}
	}
	if text, _ := callTool(t, j, "grep", map[string]any{"query": "SECRETWORD"}); strings.Contains(text, "diary") {
		t.Errorf("journal token's grep found the diary: %s", text)
	}
	if text, isErr := callTool(t, j, "read_file", map[string]any{"path": "Journal/2024-01-01.md"}); isErr {
		t.Errorf("journal token reading its folder: %s", text)
	}
	if got := git(t, e.root, "rev-parse", "HEAD"); got != head {
		t.Errorf("a refused call made a commit")
	}
	if _, err := os.Stat(filepath.Join(e.root, "Journal", "new.md")); err == nil {
		t.Error("a refused write created the file")
	}
}

func TestNotesAPI(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	resp, m := e.do("PUT", "/api/notes/Journal/2024-02-02.md", `{"content": "# New\n"}`, tok...)
	if resp.StatusCode != 200 || m["commit"] == "" || m["path"] != "Journal/2024-02-02.md" {
		t.Fatalf("PUT: %d %v", resp.StatusCode, m)
	}
	if msg := git(t, e.root, "log", "-1", "--format=%s"); msg != "MCP: write Journal/2024-02-02.md" {
		t.Errorf("commit message %q", msg)
	}
	resp, m = e.do("GET", "/api/notes/Journal/2024-02-02.md", "", tok...)
	if resp.StatusCode != 200 || m["content"] != "# New\n" {
		t.Errorf("GET: %d %v", resp.StatusCode, m)
	}
	// A path that names nothing gets what it may have meant.
	resp, m = e.do("GET", "/api/notes/journal/2024-02-02", "", tok...)
	if d, _ := m["detail"].(string); resp.StatusCode != 404 || !strings.HasSuffix(d, "; did you mean Journal/2024-02-02.md?") ||
		fmt.Sprint(m["suggestions"]) != "[Journal/2024-02-02.md]" {
		t.Errorf("GET a near miss: %d %v", resp.StatusCode, m)
	}
	if resp, m = e.do("DELETE", "/api/notes/Journal/2024-02-02.md", "", tok...); resp.StatusCode != 200 || m["deleted"] != true {
		t.Errorf("DELETE: %d %v", resp.StatusCode, m)
	}
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"GET", "/api/notes/Journal/2024-02-02.md", "", 404},
		{"GET", "/api/notes/../outside.md", "", 404}, // cleaned by the client and the mux
		{"GET", "/api/notes/.git/config", "", 403},
		{"PUT", "/api/notes/a.md", `{"text": "no content field"}`, 400},
		{"PUT", "/api/notes/a.md", `not json`, 400},
		{"POST", "/api/notes/a.md", `{}`, 405},
		{"GET", "/api/nothing", "", 404},
		{"GET", "/api/notes/", "", 400},
		// Without the slash: answered in JSON, not redirected with an
		// HTML page to the address above.
		{"GET", "/api/notes", "", 400},
	} {
		resp, m := e.do(c.method, c.path, c.body, tok...)
		if resp.StatusCode != c.want || m["detail"] == nil {
			t.Errorf("%s %s: %d %v, want %d with a detail", c.method, c.path, resp.StatusCode, m, c.want)
		}
		if c.path == "/api/notes" && resp.Request.URL.Path != c.path {
			t.Errorf("%s %s was redirected to %s", c.method, c.path, resp.Request.URL.Path)
		}
	}
}

// TestNotesAPISendsTextAsWritten: a note's <, > and & reach a REST
// client as they are in the note (as over MCP), and no answer may be
// sniffed as another type.
func TestNotesAPISendsTextAsWritten(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	const text = "<b>Tom & Jerry</b> -> [[Home]]\n"
	body, _ := json.Marshal(map[string]string{"content": text})
	if resp, m := e.do("PUT", "/api/notes/escape.md", string(body), tok...); resp.StatusCode != 200 {
		t.Fatalf("PUT: %d %v", resp.StatusCode, m)
	}
	req, _ := http.NewRequest("GET", e.url+"/api/notes/escape.md", nil)
	req.Header.Set(tok[0], tok[1])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(raw), `"<b>Tom & Jerry</b> -> [[Home]]\n"`) {
		t.Errorf("body %s: want the note's text unescaped", raw)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
	if resp, _ := e.do("GET", "/api/nothing", "", tok...); resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("an error answer lacks X-Content-Type-Options: nosniff")
	}
}

func TestHostAndOrigin(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	for name, h := range map[string][]string{
		"evil Host":      {"Host", "evil.example"},
		"evil Origin":    {"Origin", "http://evil.example"},
		"rebinding pair": {"Host", "evil.example", "Origin", "http://evil.example"},
	} {
		for _, path := range []string{"/mcp", "/api/notes/Home.md", "/health"} {
			method, body := "GET", ""
			if path == "/mcp" {
				method, body = "POST", initialize
			}
			resp, m := e.do(method, path, body, mcpHeaders(append(h, tok...)...)...)
			if resp.StatusCode != 403 || m["detail"] == nil {
				t.Errorf("%s on %s: %d %v", name, path, resp.StatusCode, m)
			}
		}
	}
	host := strings.TrimPrefix(e.url, "http://")
	for _, h := range [][]string{
		{"Origin", e.url},
		{"Host", "localhost" + host[strings.LastIndex(host, ":"):], "Origin", "http://localhost" + host[strings.LastIndex(host, ":"):]},
		{"Origin", "http://localhost:5678"}, // listed in cors_origins
	} {
		resp, _ := e.do("POST", "/mcp", initialize, mcpHeaders(append(h, tok...)...)...)
		if resp.StatusCode != 200 {
			t.Errorf("%v: %d", h, resp.StatusCode)
		}
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t)
	pre := []string{"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type"}
	resp, _ := e.do("OPTIONS", "/mcp", "", append([]string{"Origin", "http://localhost:5678"}, pre...)...)
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5678" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("listed origin's preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp, m := e.do("OPTIONS", "/mcp", "", append([]string{"Origin", "http://evil.example"}, pre...)...)
	if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" || m["detail"] == nil {
		t.Errorf("unlisted origin's preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// CORS off: no origin is listed, every preflight is refused.
	off := newEnv(t, func(o *Options) { o.CORSOrigins = nil })
	if resp, _ := off.do("OPTIONS", "/api/notes/Home.md", "", append([]string{"Origin", "http://localhost:5678"}, pre...)...); resp.StatusCode != 403 {
		t.Errorf("preflight with CORS off: %d", resp.StatusCode)
	}
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t)
	big := `{"content": "` + strings.Repeat("x", 70<<10) + `"}`
	resp, m := e.do("PUT", "/api/notes/big.md", big, bearer(e.tokens["full"])...)
	if resp.StatusCode != 413 || m["detail"] == nil {
		t.Errorf("PUT over the limit: %d %v", resp.StatusCode, m)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.md","content":"` + strings.Repeat("x", 70<<10) + `"}}}`
	if resp, _ := e.do("POST", "/mcp", call, mcpHeaders(bearer(e.tokens["full"])...)...); resp.StatusCode != 413 {
		t.Errorf("MCP call over the limit: %d", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(e.root, "big.md")); err == nil {
		t.Error("an oversized write landed")
	}
}

func TestSessions(t *testing.T) {
	e := newEnv(t)
	full, ro := bearer(e.tokens["full"]), bearer(e.tokens["readonly"])
	resp, _ := e.do("POST", "/mcp", initialize, mcpHeaders(full...)...)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	withSession := func(h []string) []string {
		return mcpHeaders(append(h, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")...)
	}
	if resp, _ := e.do("POST", "/mcp", ping, withSession(full)...); resp.StatusCode != 200 {
		t.Fatalf("ping in the session: %d", resp.StatusCode)
	}
	// Another credential cannot use, listen to, or end the session.
	if resp, _ := e.do("POST", "/mcp", ping, withSession(ro)...); resp.StatusCode != 404 {
		t.Errorf("other credential's POST: %d", resp.StatusCode)
	}
	if resp, _ := e.do("GET", "/mcp", "", withSession(ro)...); resp.StatusCode != 404 {
		t.Errorf("other credential's GET: %d", resp.StatusCode)
	}
	if resp, _ := e.do("DELETE", "/mcp", "", withSession(ro)...); resp.StatusCode != 404 {
		t.Errorf("other credential's DELETE: %d", resp.StatusCode)
	}
	if resp, _ := e.do("DELETE", "/mcp", "", withSession(full)...); resp.StatusCode != 200 {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if resp, _ := e.do("POST", "/mcp", ping, withSession(full)...); resp.StatusCode != 404 {
		t.Errorf("ping after DELETE: %d", resp.StatusCode)
	}
}

func TestMetadataAndHealth(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, m := e.do("GET", p, "")
		if resp.StatusCode != 200 || m["resource"] != e.url+"/mcp" {
			t.Errorf("%s: %d %v", p, resp.StatusCode, m)
		}
	}
	resp, m := e.do("GET", "/health", "")
	if resp.StatusCode != 200 || m["status"] != "healthy" || m["version"] != "1.2.3" || len(m) != 3 {
		t.Errorf("health: %d %v", resp.StatusCode, m)
	}
	if resp.Header.Get("X-RateLimit-Limit") != "100" {
		t.Errorf("health rate limit header %q", resp.Header.Get("X-RateLimit-Limit"))
	}
}

func TestAuditLog(t *testing.T) {
	e := newEnv(t)
	c := e.mcpClient(e.tokens["full"])
	callTool(t, c, "write_file", map[string]any{"path": "Journal/audited.md", "content": "NOTE CONTENT"})
	e.do("POST", "/api/auth/login", `{"username": "admin", "password": "`+password+`"}`)
	e.do("GET", "/api/notes/Home.md", "")
	if err := e.srv.opts.Audit.Flush(); err != nil {
		t.Fatal(err)
	}
	log := e.audit.String()
	for _, secret := range []string{"NOTE CONTENT", password, e.tokens["full"]} {
		if strings.Contains(log, secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, log)
		}
	}
	var sawWrite, sawLogin, sawUnauth bool
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var entry audit.Entry
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch {
		case entry.Tool == "write_file":
			sawWrite = entry.Identity == "token:full" && len(entry.Paths) == 1 && entry.Paths[0] == "Journal/audited.md" && entry.Status == 200 && entry.IP != ""
		case entry.Endpoint == "/api/auth/login":
			sawLogin = entry.Identity == "login:admin" && entry.Status == 200
		case entry.Endpoint == "/api/notes/Home.md":
			sawUnauth = entry.Identity == "unauthenticated" && entry.Status == 401 && entry.Count == 1
		}
	}
	if !sawWrite || !sawLogin || !sawUnauth {
		t.Errorf("write %v, login %v, refused %v in:\n%s", sawWrite, sawLogin, sawUnauth, log)
	}
}

func TestConceptAPI(t *testing.T) {
	e := newEnv(t)
	tok := bearer(e.tokens["full"])
	resp, m := e.do("POST", "/api/concept", `{"concept_id": "regression", "include_relations": true}`, tok...)
	if resp.StatusCode != 200 || m["id"] != "regression" || m["prefLabel"] != "Regression Analysis" ||
		m["file_path"] != "Journal/regression.md" { // a remote client: the path within the vault
		t.Fatalf("concept: %d %v", resp.StatusCode, m)
	}
	if b, _ := m["broader"].([]any); len(b) != 1 || b[0] != "supervised_learning" {
		t.Errorf("broader: %v", m["broader"])
	}
	resp, m = e.do("POST", "/api/concept", `{"concept_id": "xyz"}`, tok...)
	if resp.StatusCode != 404 || m["detail"] != "Concept 'xyz' not found" || m["available_count"] != float64(3) {
		t.Errorf("unknown concept: %d %v", resp.StatusCode, m)
	}
	resp, m = e.do("POST", "/api/context/expand", `{"concept_id": "regression", "max_depth": 2, "include_content": true}`, tok...)
	if resp.StatusCode != 200 || m["focus_concept"] == nil || m["context_notes"] == nil {
		t.Errorf("expand: %d %v", resp.StatusCode, m)
	}
	resp, m = e.do("POST", "/api/search", `{"query": "regression", "limit": 10}`, tok...)
	if resp.StatusCode != 200 || m["count"] != float64(1) || m["query"] != "regression" {
		t.Errorf("search: %d %v", resp.StatusCode, m)
	}
	resp, m = e.do("GET", "/api/statistics", "", tok...)
	if resp.StatusCode != 200 || m["total_concepts"] != float64(3) || m["server_version"] == nil || m["vault_path"] != filepath.Base(e.root) {
		t.Errorf("statistics: %d %v", resp.StatusCode, m)
	}
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/api/context/expand", `{"concept_id": "regression", "max_depth": 9}`, 400},
		{"POST", "/api/search", `{"query": "` + strings.Repeat("x", 1001) + `"}`, 400},
		{"POST", "/api/concept", `{"concept_id": 7}`, 400},
		{"POST", "/api/concept", `{"concept_id": ""}`, 400},
		{"GET", "/api/concept", "", 405},
		{"POST", "/api/statistics", "{}", 405},
	} {
		resp, m := e.do(c.method, c.path, c.body, tok...)
		if resp.StatusCode != c.want || m["detail"] == nil {
			t.Errorf("%s %s %.40s: %d %v, want %d", c.method, c.path, c.body, resp.StatusCode, m, c.want)
		}
	}
	// A misspelt field is named with what the endpoint takes, not
	// dropped (TestDecode has the other bodies).
	resp, m = e.do("POST", "/api/concept", `{"concept_id": "regression", "include_relation": true}`, tok...)
	if d, _ := m["detail"].(string); resp.StatusCode != 400 || !strings.Contains(d, `Unknown field "include_relation"`) || !strings.Contains(d, `"include_relations"`) {
		t.Errorf("unknown field: %d %v", resp.StatusCode, m)
	}
	if resp, _ := e.do("GET", "/api/statistics", ""); resp.StatusCode != 401 {
		t.Errorf("statistics without a credential: %d", resp.StatusCode)
	}
	// A token for Journal only sees the concepts there.
	j := bearer(e.tokens["journal"])
	if resp, m := e.do("POST", "/api/concept", `{"concept_id": "secret_concept"}`, j...); resp.StatusCode != 404 || m["available_count"] != float64(2) {
		t.Errorf("journal token, hidden concept: %d %v", resp.StatusCode, m)
	}
	resp, m = e.do("GET", "/api/statistics", "", j...)
	if resp.StatusCode != 200 || m["total_concepts"] != float64(2) {
		t.Errorf("journal token's statistics: %d %v", resp.StatusCode, m)
	}
	resp, m = e.do("POST", "/api/context/expand", `{"concept_id": "regression", "relation_types": ["related"]}`, j...)
	if raw, _ := json.Marshal(m); resp.StatusCode != 200 || strings.Contains(string(raw), "SECRETWORD") || strings.Contains(string(raw), "secret_concept") {
		t.Errorf("journal token's expand: %d %s", resp.StatusCode, raw)
	}
}

// TestNoSecretsLogged drives every kind of credential, good and bad,
// through a session and the REST API, with a panic-free error path
// included, and checks that neither the server's log (at debug level) nor
// the audit log holds a password, a token, a JWT or a note's content.
func TestNoSecretsLogged(t *testing.T) {
	e := newEnv(t)
	_, body := e.do("POST", "/api/auth/login", `{"username": "admin", "password": "`+password+`"}`)
	jwtTok, _ := body["access_token"].(string)
	if jwtTok == "" {
		t.Fatalf("login: %v", body)
	}
	e.do("POST", "/api/auth/login", `{"username": "admin", "password": "WRONGPASSWORD"}`)
	e.do("POST", "/api/auth/login", `{"username": "nobody", "password": "OTHERPASSWORD"}`)
	badTok := auth.TokenPrefix + "GUESSEDTOKEN"
	for _, tok := range []string{badTok, jwtTok + "x", e.tokens["readonly"]} {
		e.do("POST", "/mcp", initialize, mcpHeaders(bearer(tok)...)...)
		e.do("GET", "/api/notes/Private/diary.md", "", bearer(tok)...)
	}
	c := e.mcpClient(jwtTok)
	callTool(t, c, "write_file", map[string]any{"path": "Journal/logged.md", "content": "NOTE CONTENT"})
	callTool(t, c, "read_file", map[string]any{"path": "Private/diary.md"})
	callTool(t, e.mcpClient(e.tokens["journal"]), "write_file", map[string]any{"path": "Home.md", "content": "REFUSED CONTENT"})
	e.do("PUT", "/api/notes/Journal/rest.md", `{"content": "REST CONTENT"}`, bearer(e.tokens["full"])...)
	e.do("PUT", "/api/notes/Journal/rest.md", `{"content": "RO CONTENT"}`, bearer(e.tokens["readonly"])...)

	secrets := []string{password, "WRONGPASSWORD", "OTHERPASSWORD", "GUESSEDTOKEN", jwtTok, "SECRETWORD",
		"NOTE CONTENT", "REFUSED CONTENT", "REST CONTENT", "RO CONTENT", "test secret of the server"}
	for _, tok := range e.tokens {
		secrets = append(secrets, tok, strings.TrimPrefix(tok, auth.TokenPrefix))
	}
	for what, log := range map[string]string{"server log": e.logs.String(), "audit log": e.audit.String()} {
		for _, secret := range secrets {
			if strings.Contains(log, secret) {
				t.Errorf("the %s holds %q:\n%s", what, secret, log)
			}
		}
	}
	if !strings.Contains(e.audit.String(), "Journal/logged.md") {
		t.Errorf("the audit log lacks the write (so the check above saw nothing):\n%s", e.audit.String())
	}
}

// TestAPIStatuses checks the REST API's remaining statuses: 503 with
// Retry-After while the index has not finished its first build, and the
// mapping of the typed functions' errors, 500 without details included.
func TestAPIStatuses(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deps := tools.Deps{Vault: v, Index: index.New(v, logger), Logger: logger} // never built
	s, err := mcpserver.New(deps, "test")
	if err != nil {
		t.Fatal(err)
	}
	tok, hash, err := auth.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	authn, err := auth.New(auth.Options{Tokens: []auth.Token{{Name: "t", Hash: hash}}, JWTSecret: []byte("test secret of the server, 32 bytes")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{MCP: s, Deps: deps, Auth: authn, Logger: logger, IndexWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetLoopback(true)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	e := &env{t: t, url: ts.URL}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/concept", `{"concept_id": "x"}`},
		{"POST", "/api/search", `{"query": "x"}`},
		{"POST", "/api/context/expand", `{"concept_id": "x"}`},
		{"GET", "/api/statistics", ""},
	} {
		resp, m := e.do(c.method, c.path, c.body, bearer(tok)...)
		if resp.StatusCode != 503 || m["detail"] == nil || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s before the index is built: %d %v %v", c.method, c.path, resp.StatusCode, m, resp.Header)
		}
	}

	for _, c := range []struct {
		err  error
		want int
	}{
		{&vault.Error{Kind: vault.ErrNotFound, Msg: "File not found: a.md"}, 404},
		{&vault.Error{Kind: vault.ErrDenied, Msg: "Access denied: a.md"}, 403},
		{&vault.Error{Kind: vault.ErrHidden, Msg: "hidden"}, 403},
		{&vault.Error{Kind: vault.ErrOutside, Msg: "outside"}, 403},
		{&vault.Error{Kind: vault.ErrExists, Msg: "exists"}, 409},
		{&vault.Error{Kind: vault.ErrInvalidInput, Msg: "bad"}, 400},
		{context.DeadlineExceeded, 503},
		{errors.New("disk on fire at /srv/vault/a.md"), 500},
	} {
		w := httptest.NewRecorder()
		srv.fail(w, httptest.NewRequest(http.MethodGet, "/api/notes/a.md", nil), c.err)
		var m map[string]string
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		if w.Code != c.want || m["detail"] == "" || len(m) != 1 {
			t.Errorf("%v: %d %s, want %d with a detail", c.err, w.Code, w.Body, c.want)
		}
		if c.want == 500 && strings.Contains(m["detail"], "/srv/vault") {
			t.Errorf("a 500 shows the error's details: %s", w.Body)
		}
	}
}

// GET /api/notes/{path} reads a note a page at a time, as read_file does:
// a note longer than a page is truncated with the next_offset (and inside
// a line longer than a page, the next_column) to ask for the rest.
func TestGetNotePaged(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Deps.MaxReadBytes = 64 })
	var long strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&long, "line %02d abcdefgh\n", i) // 17 bytes: 3 lines a page
	}
	wide := strings.Repeat("é", 100) + "\n" // 200 bytes in one line
	for rel, content := range map[string]string{"Long.md": long.String(), "Wide.md": wide} {
		if err := os.WriteFile(filepath.Join(e.root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path    string
		status  int
		content string         // the content's start
		want    map[string]any // fields of the answer; nil: absent
		detail  string
	}{
		{path: "Home.md", status: 200, content: "# Home\n",
			want: map[string]any{"truncated": nil, "first_line": nil, "next_offset": nil}},
		{path: "Long.md", status: 200, content: "line 01 abcdefgh\nline 02 abcdefgh\nline 03 abcdefgh\n",
			want: map[string]any{"truncated": true, "first_line": 1.0, "lines": 3.0, "total_lines": 20.0, "next_offset": 3.0, "next_column": nil}},
		{path: "Long.md?offset=3", status: 200, content: "line 04 abcdefgh\n",
			want: map[string]any{"first_line": 4.0, "lines": 3.0, "next_offset": 6.0}},
		{path: "Long.md?offset=18", status: 200, content: "line 19 abcdefgh\nline 20 abcdefgh\n",
			want: map[string]any{"truncated": true, "first_line": 19.0, "lines": 2.0, "next_offset": nil}},
		{path: "Long.md?limit=2", status: 200, content: "line 01 abcdefgh\nline 02 abcdefgh\n",
			want: map[string]any{"lines": 2.0, "next_offset": 2.0}},
		{path: "Wide.md", status: 200, content: strings.Repeat("é", 32),
			want: map[string]any{"truncated": true, "lines": 1.0, "next_offset": 0.0, "next_column": 64.0}},
		{path: "Wide.md?column=192", status: 200, content: "éééé\n",
			want: map[string]any{"truncated": true, "next_offset": nil, "next_column": nil}},
		{path: "Long.md?offset=20", status: 400, detail: "offset=20 is past the end: Long.md has 20 lines"},
		{path: "Long.md?offset=-1", status: 400, detail: `query parameter offset="-1": want a whole number of at least 0`},
		{path: "Long.md?limit=0", status: 400, detail: `query parameter limit="0": want a whole number of at least 1`},
		{path: "Long.md?column=x", status: 400, detail: `query parameter column="x"`},
		{path: "home.md", status: 404, detail: "Home.md"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			e.clock.add(2 * time.Second) // within the API's rate limit
			resp, m := e.do("GET", "/api/notes/"+tt.path, "", bearer(e.tokens["full"])...)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %v", resp.StatusCode, tt.status, m)
			}
			if tt.detail != "" {
				if d, _ := m["detail"].(string); !strings.Contains(d, tt.detail) {
					t.Errorf("detail %q, want it to hold %q", d, tt.detail)
				}
				return
			}
			if c, _ := m["content"].(string); !strings.HasPrefix(c, tt.content) {
				t.Errorf("content %q, want it to start %q", c, tt.content)
			}
			for k, want := range tt.want {
				if got, ok := m[k]; want == nil && ok || want != nil && got != want {
					t.Errorf("%s = %v, want %v", k, got, want)
				}
			}
		})
	}
}

// flushFailRecorder stands for a repository whose commit was made but
// whose last flush failed (gitsync's NotFlushedError).
type flushFailRecorder struct{}

func (flushFailRecorder) Prepare(context.Context, changes.Change) (changes.Pending, error) {
	return flushFailPending{}, nil
}

// flushFailPending is flushFailRecorder's prepared commit.
type flushFailPending struct{}

func (flushFailPending) Publish() (string, error) { return "", committedNotFlushed{} }
func (flushFailPending) Abort()                   {}

type committedNotFlushed struct{}

func (committedNotFlushed) Error() string     { return "commit abc1234 was made, but flushing it failed" }
func (committedNotFlushed) Committed() string { return "abc1234" }
func (committedNotFlushed) Unwrap() error     { return syscall.EIO }

// A REST write whose commit was made but not flushed is not answered as
// an unexplained failure: the answer says it was committed, and names the
// commit, so that a client does not retry a change already made.
func TestRESTWriteCommittedNotFlushed(t *testing.T) {
	e := newEnv(t)
	e.srv.opts.Deps.Vault.SetRecorder(flushFailRecorder{})
	resp, m := e.do("PUT", "/api/notes/Journal/new.md", `{"content": "kept"}`, bearer(e.tokens["full"])...)
	if resp.StatusCode != 500 || m["commit"] != "abc1234" {
		t.Fatalf("status %d, body %v", resp.StatusCode, m)
	}
	d, _ := m["detail"].(string)
	for _, want := range []string{"the change (write Journal/new.md) was committed as abc1234", "may not survive a power loss", "input/output error"} {
		if !strings.Contains(d, want) {
			t.Errorf("detail %q, want it to hold %q", d, want)
		}
	}
	if strings.Contains(d, e.root) {
		t.Errorf("detail shows the vault's path: %q", d)
	}
	if got, err := os.ReadFile(filepath.Join(e.root, "Journal", "new.md")); err != nil || string(got) != "kept" {
		t.Errorf("the committed note: %q, %v", got, err)
	}
}
