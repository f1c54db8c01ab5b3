package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/crypto/bcrypt"
)

// chromium is Debian's Chromium, which make e2e-deps installs.
const chromium = "/usr/bin/chromium"

// browserReport is what e2e/ts/browser-signin.mjs reports.
type browserReport struct {
	OK               bool              `json:"ok"`
	ClientID         string            `json:"clientId"`
	Scope            string            `json:"scope"`
	RefreshIssued    bool              `json:"refreshIssued"`
	SignInMillis     int               `json:"signInMillis"`
	PageText         string            `json:"pageText"`
	PageHeaders      map[string]string `json:"pageHeaders"`
	WrongPassword    string            `json:"wrongPasswordText"`
	Callback         map[string]any    `json:"callback"`
	AccessToken      string            `json:"accessToken"`
	RefreshToken     string            `json:"refreshToken"`
	SignInAsked      string            `json:"signInAsked"`
	AfterSignIn      *toolUse          `json:"afterSignIn"`
	Use              *toolUse          `json:"use"`
	AfterRefresh     *toolUse          `json:"afterRefresh"`
	AuthorizationURL string            `json:"authorizationUrl"`
}

type toolUse struct {
	Unauthorized bool     `json:"unauthorized"`
	Error        string   `json:"error"`
	SessionID    string   `json:"sessionId"`
	Tools        []string `json:"tools"`
	Read         string   `json:"read"`
	ReadError    bool     `json:"readError"`
	Write        string   `json:"write"`
	WriteError   bool     `json:"writeError"`
}

// TestHTTPOAuthBrowser is a connector's whole life, with the parts a user
// has: the official TypeScript SDK's OAuth client discovers the server
// from a 401, registers (dynamically, and by a client metadata document
// served over https on loopback), sends the person to the sign-in page,
// which headless Chromium renders and a person's keystrokes fill in (a
// wrong password first, then read-and-write for one client and read-only
// for the other), and exchanges the code with PKCE and the resource.
// Both protocol versions then call tools: 2025-11-25 with a session (the
// SDK), 2026-07-28 without (mcp-go). The server restarts; the old access
// token still works and the refresh token still refreshes. A read-only
// grant gets the insufficient_scope challenge for a write. `vaultmcp
// oauth revoke` signs a client out of the running server, and RFC 7009
// revocation ends the other. The audit log records it all, with no secret
// in it.
func TestHTTPOAuthBrowser(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium is not installed at %s: run make e2e-deps (it installs Debian's chromium)", chromium)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	v := newVault(t, map[string]string{"Journal/day.md": "# Day\n"})
	dir := t.TempDir()
	shots := t.ArtifactDir()

	// Where the browser lands after signing in: the connector's callback.
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Signed in; you can close this page.")
	}))
	t.Cleanup(cb.Close)
	callback := cb.URL + "/callback"

	// The second client's metadata document, on https as the SDK and the
	// specification ask; the server trusts its certificate through
	// SSL_CERT_FILE.
	var docURL string
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=300")
		json.NewEncoder(w).Encode(map[string]any{
			"client_id": docURL, "client_name": "vaultmcp browser e2e (metadata document)",
			"redirect_uris": []string{callback}, "grant_types": []string{"authorization_code", "refresh_token"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none",
		})
	}))
	t.Cleanup(docs.Close)
	docURL = docs.URL + "/oauth/client.json"
	caFile := filepath.Join(dir, "ca.pem")
	writePEM(t, caFile, docs.TLS)

	addr := freeLoopbackAddr(t)
	stateFile := filepath.Join(dir, "state", "oauth.json")
	auditLog := filepath.Join(dir, "audit.jsonl")
	users := fmt.Sprintf(`[{"name": "alice", "password_hash": %q}]`, hash)
	opts := []serverOption{withHTTPAddr(addr), withEnv(
		"VAULTMCP_HTTP_USERS="+users, "VAULTMCP_HTTP_OAUTH_ENABLED=true",
		"VAULTMCP_HTTP_OAUTH_STATE_FILE="+stateFile, "VAULTMCP_HTTP_OAUTH_ALLOW_PRIVATE_CLIENT_METADATA=true",
		"VAULTMCP_HTTP_AUDIT_LOG="+auditLog, "SSL_CERT_FILE="+caFile,
	)}
	srv := startHTTP(t, v, opts...)
	mcpURL := srv.url + "/mcp"

	ctx, cancel := context.WithTimeout(context.Background(), 4*callTimeout)
	defer cancel()
	run := func(phase, clientState string, extra ...string) browserReport {
		t.Helper()
		env := append(os.Environ(), "MCP_URL="+mcpURL, "CLIENT_STATE="+clientState, "CALLBACK_URL="+callback,
			"USERNAME=alice", "PASSWORD=correct horse", "SCREENSHOT_DIR="+shots, "CHROMIUM="+chromium)
		var rep browserReport
		if err := tryTS(ctx, append(env, extra...), &rep, "browser-signin.mjs", phase); err != nil {
			t.Fatalf("%v\nscreenshots and pages in %s\nserver log:\n%s", err, shots, srv.stderr.String())
		}
		return rep
	}

	// 1. Dynamic registration, a wrong password, then read and write.
	dynState := filepath.Join(dir, "dynamic.json")
	dyn := run("signin", dynState, "ACCESS=write", "WRONG_PASSWORD_FIRST=1")
	t.Logf("sign-in in the browser (dynamic registration, a wrong password first): %d ms", dyn.SignInMillis)
	if !strings.Contains(dyn.PageText, "vaultmcp browser e2e (dynamic registration)") || !strings.Contains(dyn.PageText, strings.TrimPrefix(cb.URL, "http://")) {
		t.Errorf("the sign-in page does not name the client and where it returns:\n%s", dyn.PageText)
	}
	if !strings.Contains(dyn.WrongPassword, "The user name or password is not right.") {
		t.Errorf("after a wrong password the page says:\n%s", dyn.WrongPassword)
	}
	if dyn.PageHeaders["referrer-policy"] != "no-referrer" {
		t.Errorf("the page's Referrer-Policy is %q: the test must hold under the strict policy that makes Origin null", dyn.PageHeaders["referrer-policy"])
	}
	if dyn.Callback["iss"] != srv.url {
		t.Errorf("the redirect's iss is %v, want %s (RFC 9207)", dyn.Callback["iss"], srv.url)
	}
	if dyn.Scope != "vault:read vault:write offline_access" || !dyn.RefreshIssued {
		t.Errorf("scope %q, refresh token %v", dyn.Scope, dyn.RefreshIssued)
	}
	u := dyn.AfterSignIn
	if u == nil || u.SessionID == "" || u.Read != "# Day\n" || u.WriteError || !strings.Contains(u.Write, "commit") {
		t.Fatalf("tools after signing in (2025-11-25, with a session): %+v", u)
	}
	if !v.exists("connector/afterSignIn.md") {
		t.Error("the connector's write is not in the vault")
	}

	// 2. A metadata document, and read-only access.
	docState := filepath.Join(dir, "document.json")
	doc := run("signin", docState, "ACCESS=read", "CLIENT_METADATA_URL="+docURL)
	t.Logf("sign-in in the browser (metadata document, read-only): %d ms", doc.SignInMillis)
	if doc.ClientID != docURL || doc.Scope != "vault:read offline_access" {
		t.Errorf("client %q, scope %q", doc.ClientID, doc.Scope)
	}
	if !strings.Contains(doc.PageText, "vaultmcp browser e2e (metadata document)") || !strings.Contains(doc.PageText, "identified by "+strings.TrimPrefix(docs.URL, "https://")) {
		t.Errorf("the page for a metadata-document client:\n%s", doc.PageText)
	}
	if ro := doc.AfterSignIn; ro == nil || ro.Read != "# Day\n" || slices.Contains(ro.Tools, "write_file") || len(ro.Tools) == 0 {
		t.Errorf("a read-only grant's session: %+v", ro)
	}
	// A write with the read-only token: the scope challenge, for step-up.
	resp := postMCP(t, mcpURL, doc.AccessToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"x.md","content":"x"}}}`)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) ||
		!strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="vault:write"`) {
		t.Errorf("a write with a read-only token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if resp := restPut(t, srv.url+"/api/notes/x.md", doc.AccessToken); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a REST write with a read-only token: %d", resp.StatusCode)
	}

	// 3. The other protocol version: 2026-07-28, no session, mcp-go.
	mcpGoRead(t, mcpURL, dyn.AccessToken, mcp.ProtocolVersion20260728)

	// 4. A restart keeps every grant.
	if err := srv.stop(t); err != nil {
		t.Fatalf("stop: %v", err)
	}
	srv = startHTTP(t, v, opts...)
	if srv.url+"/mcp" != mcpURL {
		t.Fatalf("restarted at %s, not %s", srv.url, mcpURL)
	}
	if use := run("use", dynState).Use; use == nil || use.Unauthorized || use.Read != "# Day\n" {
		t.Fatalf("the access token from before the restart: %+v", use)
	}
	ref := run("refresh", dynState)
	if r := ref.AfterRefresh; r == nil || r.Unauthorized || r.Read != "# Day\n" || r.WriteError {
		t.Fatalf("after refreshing across the restart: %+v", r)
	}
	mcpGoRead(t, mcpURL, ref.AccessToken, mcp.ProtocolVersion20251125)

	// 5. `vaultmcp oauth list` and `revoke`, against the running server.
	list := cli(t, srv, "oauth", "list")
	for _, want := range []string{dyn.ClientID, docURL, "alice", "vault:read vault:write offline_access", strings.TrimPrefix(cb.URL, "http://")} {
		if !strings.Contains(list, want) {
			t.Errorf("oauth list lacks %q:\n%s", want, list)
		}
	}
	cli(t, srv, "oauth", "revoke", dyn.ClientID)
	start := time.Now()
	for {
		if resp := postMCP(t, mcpURL, ref.AccessToken, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode == http.StatusUnauthorized {
			break
		}
		if time.Since(start) > callTimeout {
			t.Fatal("the revoked client's token still works")
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(start)
	t.Logf("oauth revoke took effect on the running server in %s", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("oauth revoke took %s to take effect, want at most 5 s", took)
	}
	if use := run("use", dynState).Use; use == nil || !use.Unauthorized {
		t.Errorf("the revoked connector: %+v", use)
	}

	// 6. RFC 7009 revocation by the client itself.
	rv, err := http.PostForm(srv.url+"/oauth/revoke", url.Values{"token": {doc.RefreshToken}, "client_id": {docURL}})
	if err != nil {
		t.Fatal(err)
	}
	rv.Body.Close()
	if rv.StatusCode != http.StatusOK {
		t.Fatalf("revocation endpoint: %d", rv.StatusCode)
	}
	if resp := postMCP(t, mcpURL, doc.AccessToken, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("after revoking its refresh token, the grant's access token: %d", resp.StatusCode)
	}

	// 7. The audit log: who signed in, what was granted, refreshed and
	// revoked; never a password or a token.
	srv.stop(t)
	raw, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, event := range []string{`"event":"oauth.sign_in_failed"`, `"event":"oauth.sign_in"`, `"event":"oauth.token"`, `"event":"oauth.refresh"`, `"event":"oauth.revoke"`, `"identity":"cli"`} {
		if !strings.Contains(string(raw), event) {
			t.Errorf("the audit log lacks %s", event)
		}
	}
	for _, secret := range []string{"correct horse", dyn.AccessToken, dyn.RefreshToken, ref.RefreshToken, doc.AccessToken} {
		if secret != "" && strings.Contains(string(raw), secret) {
			t.Errorf("the audit log holds a secret")
		}
	}
}

// writePEM writes a TLS server's certificate as a PEM file.
func writePEM(t *testing.T, path string, cfg *tls.Config) {
	t.Helper()
	var buf strings.Builder
	for _, c := range cfg.Certificates[0].Certificate {
		pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c})
	}
	if err := os.WriteFile(path, []byte(buf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freeLoopbackAddr is a loopback address with a port free right now, for a
// server that must be restarted where its clients knew it.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// postMCP sends one JSON-RPC message to /mcp with a bearer token.
func postMCP(t *testing.T, mcpURL, token, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func restPut(t *testing.T, u, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader(`{"content":"x"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// mcpGoRead reads a note through mcp-go's client with a bearer token, in
// one protocol version.
func mcpGoRead(t *testing.T, mcpURL, token, protocol string) {
	t.Helper()
	c, err := client.NewStreamableHttpClient(mcpURL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := initializeRequest()
	req.Params.ProtocolVersion = protocol
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize (%s): %v", protocol, err)
	}
	s := &session{c: c}
	if out := s.ok(t, "read_file", map[string]any{"path": "Journal/day.md"}); out != "# Day\n" {
		t.Errorf("read_file (%s) = %q", protocol, out)
	}
}

// cli runs the binary's command line with the server's configuration.
func cli(t *testing.T, srv *httpServer, args ...string) string {
	t.Helper()
	cmd := exec.Command(serverBin, args...)
	cmd.Env, cmd.Dir = srv.cmd.Env, srv.cmd.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vaultmcp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
