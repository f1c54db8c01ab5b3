package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/internal/testutil"
)

// serverBin is the vaultmcp binary under test, built once by TestMain.
var serverBin string

// callTimeout guards against a hung server; it is not a speed assertion
// (the shared 2-core machine can be slow), so it is generous.
const callTimeout = 60 * time.Second

// TestMain builds the binary once for the whole run. VAULTMCP_E2E_BIN
// points at a prebuilt binary instead; VAULTMCP_E2E_RACE=1 builds it with
// the race detector, and sessions then fail on any race report.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return m.Run() // listing tests needs no binary
	}
	if bin := os.Getenv("VAULTMCP_E2E_BIN"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e: VAULTMCP_E2E_BIN:", err)
			return 1
		}
		serverBin = abs
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "vaultmcp-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir for the binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBin = filepath.Join(dir, "vaultmcp")
	args := []string{"build", "-o", serverBin}
	if os.Getenv("VAULTMCP_E2E_RACE") != "" {
		args = append(args, "-race")
	}
	args = append(args, "vaultmcp/cmd/vaultmcp")
	build := exec.Command("go", args...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go %s: %v\n", strings.Join(args, " "), err)
		return 1
	}
	return m.Run()
}

var (
	plainOnce sync.Once
	plainBin  string
	plainErr  error
)

// plainBinary is the binary under test, except that a race-detector
// build (VAULTMCP_E2E_RACE=1) is swapped for a plain build of the same
// source. The crash test runs it because it starts several times faster
// (the test is about what a kill leaves on disk), and the abuse tests
// because they measure memory, which the race detector's shadow memory
// multiplies; the other e2e tests run the race build.
func plainBinary(t testing.TB) string {
	t.Helper()
	if os.Getenv("VAULTMCP_E2E_RACE") == "" || os.Getenv("VAULTMCP_E2E_BIN") != "" {
		return serverBin
	}
	plainOnce.Do(func() {
		plainBin = serverBin + "-plain"
		out, err := exec.Command("go", "build", "-o", plainBin, "vaultmcp/cmd/vaultmcp").CombinedOutput()
		if err != nil {
			plainErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainBin
}

// ---------------------------------------------------------------------
// Vaults

// testVault is a vault folder in a test's temp dir, with a sibling folder
// Outside that tests use as the target of escape attempts. Snapshots
// cover both, so a write that lands outside the vault is caught too.
type testVault struct {
	Root    string // the vault, absolute and free of symlinks
	Outside string // a folder beside the vault, never served
	base    string // holds Root and Outside
	git     bool
}

type vaultConfig struct{ git bool }

// vaultOption changes how newVault builds a vault.
type vaultOption func(*vaultConfig)

// withoutGit leaves the vault a plain folder instead of a git repository.
func withoutGit() vaultOption { return func(c *vaultConfig) { c.git = false } }

// newVault creates a vault holding files (vault-relative path → content;
// parents are created) as a git repository with the files in its first
// commit, unless withoutGit is given.
func newVault(t testing.TB, files map[string]string, opts ...vaultOption) *testVault {
	t.Helper()
	cfg := vaultConfig{git: true}
	for _, o := range opts {
		o(&cfg)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v := &testVault{Root: filepath.Join(base, "vault"), Outside: filepath.Join(base, "outside"), base: base, git: cfg.git}
	for _, d := range []string{v.Root, v.Outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for rel, content := range files {
		v.write(t, rel, content)
	}
	if cfg.git {
		v.gitRun(t, "init", "-q", "-b", "main")
		v.gitRun(t, "add", "-A")
		v.gitRun(t, "commit", "-q", "--allow-empty", "-m", "initial")
	}
	return v
}

// path returns the absolute path of a vault-relative path.
func (v *testVault) path(rel string) string {
	return filepath.Join(v.Root, filepath.FromSlash(rel))
}

// write puts a file into the vault behind the server's back.
func (v *testVault) write(t testing.TB, rel, content string) {
	t.Helper()
	p := v.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns a vault file's content, failing the test if it is missing.
func (v *testVault) read(t testing.TB, rel string) string {
	t.Helper()
	data, err := os.ReadFile(v.path(rel))
	if err != nil {
		t.Fatalf("read %s from disk: %v", rel, err)
	}
	return string(data)
}

// exists reports whether a vault-relative path exists (without following
// a final symlink).
func (v *testVault) exists(rel string) bool {
	_, err := os.Lstat(v.path(rel))
	return err == nil
}

// symlink creates a symbolic link at rel pointing to target (absolute, or
// relative to the link's folder).
func (v *testVault) symlink(t testing.TB, rel, target string) {
	t.Helper()
	p := v.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// gitStatus is `git status --porcelain` of the vault without the
// backups of the server's changes (.vaultmcp-….bak), which are removed in
// the background just after a change's answer, so one may still be
// there. Any other temporary file left behind is a leak and shows.
func (v *testVault) gitStatus(t testing.TB) string {
	t.Helper()
	var kept []string
	for _, line := range strings.Split(v.gitRun(t, "status", "--porcelain"), "\n") {
		// git quotes a name with unusual characters: "….bak".
		if line != "" && !(strings.Contains(line, ".vaultmcp-") && strings.HasSuffix(strings.TrimSuffix(line, `"`), ".bak")) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// gitRun runs git in the vault, isolated from the user's git config, and
// returns its trimmed output.
func (v *testVault) gitRun(t testing.TB, args ...string) string {
	t.Helper()
	testutil.WaitIndexWritten(v.Root)
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		// A commit of many loose objects (the 100,000-note test's) would
		// start a detached `git gc --auto`, still writing into .git when
		// the test's folder is removed.
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@localhost",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@localhost",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitAll commits whatever changed in a git vault since its last
// commit, so the server starts on a clean worktree (the server commits
// external changes on its own, which would race with a test's snapshot).
func (v *testVault) commitAll(t testing.TB, msg string) {
	t.Helper()
	if !v.git || v.gitStatus(t) == "" {
		return
	}
	v.gitRun(t, "add", "-A")
	v.gitRun(t, "commit", "-q", "-m", msg)
}

// snapshot is the state of a vault and its Outside folder: every entry
// with its kind, mode and content hash (or link target), plus the git
// HEAD. The inside of .git is left out: git may rewrite its index on a
// read, but a refused change must never move HEAD.
type snapshot map[string]string

// snapshot records the vault's current state.
func (v *testVault) snapshot(t testing.TB) snapshot {
	t.Helper()
	s := snapshot{}
	gitDir := filepath.Join(v.Root, ".git")
	err := filepath.WalkDir(v.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == gitDir {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".lock") && !strings.HasPrefix(p, v.Root+string(filepath.Separator)) {
			// A bare remote beside the vault holds a lock (HEAD.lock)
			// for a moment after its branch moved, while the push that
			// moved it finishes: not a change, and a snapshot taken
			// right after waiting for the branch may catch it.
			return nil
		}
		rel, _ := filepath.Rel(v.base, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			s[rel] = "symlink -> " + target
		case d.IsDir():
			s[rel] = fmt.Sprintf("dir %v", info.Mode().Perm())
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s[rel] = fmt.Sprintf("file %v %d %x", info.Mode().Perm(), len(data), sha256.Sum256(data))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if v.git {
		s["<git HEAD>"] = v.gitRun(t, "rev-parse", "HEAD")
	}
	return s
}

// unchanged fails the test with a readable diff when the vault differs
// from before.
func (v *testVault) unchanged(t testing.TB, before snapshot) {
	t.Helper()
	after := v.snapshot(t)
	var diffs []string
	for k, b := range before {
		a, ok := after[k]
		switch {
		case !ok:
			diffs = append(diffs, "removed: "+k)
		case a != b:
			diffs = append(diffs, fmt.Sprintf("changed: %s (%s -> %s)", k, b, a))
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added: "+k)
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Errorf("vault changed by a refused call:\n  %s", strings.Join(diffs, "\n  "))
	}
}

// ---------------------------------------------------------------------
// Starting the server

// serverConfig is how one server process is started.
type serverConfig struct {
	args  []string // after the binary: "serve", flags
	env   []string // the complete environment
	dir   string   // working directory (an empty temp dir)
	dirty bool     // start on the vault as it is, without committing it first
	// protocol pins the MCP protocol version the client asks for; "" lets
	// mcp-go's client choose.
	protocol string
	// stderrPipe gives the server a pipe for stderr the test can close,
	// as a client that ends a session does (startProc only).
	stderrPipe bool
	// httpAddr is where startHTTP listens; "" is a port the kernel picks.
	httpAddr string
	// bin is the binary to start; "" is serverBin.
	bin string
}

// withBinary starts the server from bin instead of serverBin.
func withBinary(bin string) serverOption {
	return func(c *serverConfig) { c.bin = bin }
}

// withHTTPAddr makes startHTTP listen on addr, so that a restarted server
// is found where its clients knew it.
func withHTTPAddr(addr string) serverOption {
	return func(c *serverConfig) { c.httpAddr = addr }
}

// serverOption changes how a server is started.
type serverOption func(*serverConfig)

// withEnv adds KEY=VALUE pairs to the server's environment.
func withEnv(kv ...string) serverOption {
	return func(c *serverConfig) { c.env = append(c.env, kv...) }
}

// withArgs replaces the command line after the binary (by default
// "serve --vault ROOT").
func withArgs(args ...string) serverOption {
	return func(c *serverConfig) { c.args = args }
}

// withDirtyVault starts the server without first committing what the test
// changed in the vault, for tests of how the server takes in external
// changes.
func withDirtyVault() serverOption {
	return func(c *serverConfig) { c.dirty = true }
}

// withStderrPipe makes startProc give the server a stderr pipe the test
// closes with proc.closeStderr.
func withStderrPipe() serverOption {
	return func(c *serverConfig) { c.stderrPipe = true }
}

// withProtocol makes the client ask for one protocol version (e.g.
// "2025-11-25" for the initialize handshake and resources/subscribe).
func withProtocol(version string) serverOption {
	return func(c *serverConfig) { c.protocol = version }
}

// newServerConfig isolates the server from the developer's machine: no
// VAULTMCP_* or vault variables from the outer environment, config, data
// and state folders of its own, and an empty working directory (so no stray
// ./vaultmcp.yaml is read).
func newServerConfig(t testing.TB, v *testVault, opts []serverOption) serverConfig {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "VAULTMCP_"), k == "OBSIDIAN_VAULT_PATH", k == "VAULT_PATH",
			k == "XDG_CONFIG_HOME", k == "XDG_DATA_HOME", k == "XDG_STATE_HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
	)
	c := serverConfig{args: []string{"serve", "--vault", v.Root}, env: env, dir: home}
	for _, o := range opts {
		o(&c)
	}
	if !c.dirty {
		v.commitAll(t, "test setup")
	}
	return c
}

func (c serverConfig) command(ctx context.Context, stderr *lockedBuffer) *exec.Cmd {
	bin := c.bin
	if bin == "" {
		bin = serverBin
	}
	cmd := exec.CommandContext(ctx, bin, c.args...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	cmd.Stderr = stderr
	return cmd
}

// lockedBuffer collects a server's stderr safely across goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// checkServerLog runs after a server exited: a panic or a race report in
// its log fails the test, and a failed test shows the log.
func checkServerLog(t testing.TB, stderr *lockedBuffer) {
	t.Helper()
	log := stderr.String()
	if strings.Contains(log, "WARNING: DATA RACE") || strings.Contains(log, "panic:") {
		t.Errorf("server log reports a race or a panic:\n%s", log)
		return
	}
	if t.Failed() {
		t.Logf("server log:\n%s", log)
	}
}

// ---------------------------------------------------------------------
// Sessions through mcp-go's client

// session is one server process driven by mcp-go's stdio client.
type session struct {
	c     *client.Client
	init  *mcp.InitializeResult
	vault *testVault
}

// startSession starts the server on v and initializes an MCP session; the
// server is stopped when the test ends.
func startSession(t testing.TB, v *testVault, opts ...serverOption) *session {
	t.Helper()
	cfg := newServerConfig(t, v, opts)
	stderr := &lockedBuffer{}
	c, err := client.NewStdioMCPClientWithOptions(serverBin, nil, cfg.args,
		transport.WithCommandFunc(func(ctx context.Context, _ string, _ []string, _ []string) (*exec.Cmd, error) {
			return cfg.command(ctx, stderr), nil
		}))
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		checkServerLog(t, stderr)
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	// The transport is already running; Start wires the client's
	// notification handlers to it (without it, OnNotification hears
	// nothing).
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "vaultmcp-e2e", Version: "1.0.0"}
	req.Params.ProtocolVersion = cfg.protocol
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v\nserver log:\n%s", err, stderr.String())
	}
	return &session{c: c, init: res, vault: v}
}

// callResult calls a tool and returns the whole result; a protocol error
// is returned as err.
func (s *session) callResult(name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return s.c.CallTool(ctx, req)
}

// call calls a tool and returns its text and whether it is an error
// result. A protocol error fails the test.
func (s *session) call(t testing.TB, name string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := s.callResult(name, args)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	return resultText(res), res.IsError
}

// ok calls a tool that must succeed and returns its text.
func (s *session) ok(t testing.TB, name string, args map[string]any) string {
	t.Helper()
	text, isErr := s.call(t, name, args)
	if isErr {
		t.Fatalf("%s %v: unexpected error result: %s", name, args, text)
	}
	return text
}

// fail calls a tool that must fail and returns the message of its
// {"error": "..."} text, checking the error contract on the way: valid
// JSON, a non-empty message, and none of the server's absolute paths
// (unless the client itself sent one).
func (s *session) fail(t testing.TB, name string, args map[string]any) string {
	t.Helper()
	text, isErr := s.call(t, name, args)
	if !isErr {
		t.Fatalf("%s %v: want an error result, got success: %s", name, args, text)
	}
	return errorMessage(t, s.vault, text, args)
}

// errorMessage checks an error result's text and returns its message.
func errorMessage(t testing.TB, v *testVault, text string, args map[string]any) string {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatalf("error result is not JSON: %q (%v)", text, err)
	}
	msg, _ := body["error"].(string)
	if strings.TrimSpace(msg) == "" {
		t.Fatalf(`error result has no "error" message: %s`, text)
	}
	if v != nil && !argsMention(args, v.base) && strings.Contains(msg, v.base) {
		t.Errorf("error message leaks the server's absolute path: %q", msg)
	}
	return msg
}

func argsMention(args map[string]any, s string) bool {
	for _, a := range args {
		if str, ok := a.(string); ok && strings.Contains(str, s) {
			return true
		}
	}
	return false
}

// resultText joins the text items of a tool result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok && !strings.HasPrefix(tc.Text, "version: ") {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// listTools returns every tool the server offers.
func (s *session) listTools(t testing.TB) []mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return res.Tools
}

// wantContains fails unless s contains every one of subs, ignoring case.
func wantContains(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(strings.ToLower(s), strings.ToLower(sub)) {
			t.Errorf("%s = %q, want it to mention %q", what, s, sub)
		}
	}
}

// resultVersion is the version a reading tool's answer ends with (a block
// of its own, which resultText leaves out); "" when there is none.
func resultVersion(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			if rest, ok := strings.CutPrefix(tc.Text, "version: "); ok {
				v, _, _ := strings.Cut(rest, " ")
				return v
			}
		}
	}
	return ""
}
