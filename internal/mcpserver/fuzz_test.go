package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// fuzzWorld is the real server (every tool, the live index, git history)
// over a temporary vault, with a folder beside it that nothing may touch.
type fuzzWorld struct {
	s       *server.MCPServer
	root    string // the vault
	base    string // holds the vault and outside
	outside string
	canary  string // outside's listing and contents, as they must stay
	tools   []string
	writers map[string]bool
	logs    *lockedLog
	calls   int
	repo    *gitsync.Repo
}

// lockedLog records the server's log for the fuzz checks.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// take returns the log written since the last call.
func (l *lockedLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

func newFuzzWorld(t testing.TB) *fuzzWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &fuzzWorld{base: base, root: filepath.Join(base, "vault"), outside: filepath.Join(base, "outside"), logs: &lockedLog{}}
	files := map[string]string{
		"vault/Welcome.md":          "---\ntags: [start]\naliases: [Home]\n---\n# Welcome\nSee [[Ideas]], [[notes/Daily#Plan|today]] and ![[img.png]]. #tag/nested\n",
		"vault/Ideas.md":            "# Ideas\n- [[Welcome]]\n- [md](notes/Daily.md)\n^block1\n",
		"vault/notes/Daily.md":      "## Plan\n[[Ideas]] [[Missing]] `[[not a link]]`\r\nline two\r\n",
		"vault/notes/ünïcödé.md":    "NFC name\n",
		"vault/img.png":             "\x89PNG\r\n\x1a\n\x00\x00",
		"vault/.obsidian/app.json":  "{}",
		"vault/.claude/secret.md":   "hidden",
		"outside/secret.md":         "outside the vault",
		"outside/notes/Daily.md":    "a decoy",
		"vault/deep/a/b/c/d/e/f.md": "[[Welcome]]",
	}
	for rel, content := range files {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out": "../outside", "out.md": "../outside/secret.md", "in.md": "Ideas.md"} {
		if err := os.Symlink(target, filepath.Join(w.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	w.canary = listing(t, w.outside)

	logger := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	v, err := vault.Open(w.root, vault.Options{MaxWriteBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: w.root, Locker: v.Locker(), Changed: ix.Refresh, Logger: logger, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	w.repo = repo
	// The links out of the vault are never committed (gitsync leaves them
	// out): excluded, so that git status shows only what the tools did.
	if err := os.MkdirAll(filepath.Join(w.root, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.root, ".git", "info", "exclude"), []byte("/out\n/out.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := repo.Sync(context.Background()); err != nil { // the files above, as the first commit
		t.Fatal(err)
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	deps := tools.Deps{Vault: v, Index: ix, Git: repo, Logger: logger}
	if w.s, err = New(deps, "fuzz", WithOutputValidation()); err != nil {
		t.Fatal(err)
	}
	w.writers = map[string]bool{}
	for _, st := range tools.All(deps) {
		w.tools = append(w.tools, st.Tool.Name)
		ro := st.Tool.Annotations.ReadOnlyHint
		w.writers[st.Tool.Name] = ro == nil || !*ro
	}
	slices.Sort(w.tools)
	w.gitClean(t)
	return w
}

// listing renders every entry below dir with its content.
func listing(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", p, d.Type())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func (w *fuzzWorld) git(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = w.root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitClean checks the vault's history: every change was committed or
// undone, so the worktree matches HEAD.
func (w *fuzzWorld) gitClean(t testing.TB) {
	t.Helper()
	w.repo.FlushIndex() // commits leave it in memory a while
	var dirty []string
	for _, line := range strings.Split(w.git(t, "status", "--porcelain", "--untracked-files=all"), "\n") {
		// A change's backups are removed in the background just after it
		// is recorded: one may still be there.
		if line != "" && !strings.Contains(line, ".vaultmcp-") {
			dirty = append(dirty, line)
		}
	}
	if len(dirty) > 0 {
		t.Fatalf("git status not clean:\n%s", strings.Join(dirty, "\n"))
	}
}

// tool maps any fuzzed name onto one of the server's tools, so every
// input exercises a handler.
func (w *fuzzWorld) tool(name string) string {
	if slices.Contains(w.tools, name) {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return w.tools[int(h.Sum32()%uint32(len(w.tools)))]
}

// call sends one tools/call with args as raw JSON and checks the
// invariants.
func (w *fuzzWorld) call(t *testing.T, name string, args []byte) {
	tool := w.tool(name)
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, args)
	if !json.Valid([]byte(msg)) {
		return // not a tool call at all: the transport answers a parse error
	}
	resp := w.s.HandleMessage(context.Background(), json.RawMessage(msg))
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("%s %s: response does not encode: %v", tool, args, err)
	}
	var out struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: response is not JSON-RPC: %s", tool, args, raw)
	}
	if out.Result == nil {
		// A protocol error is for protocol faults; arguments that are not
		// an object are the only client fault answered that way.
		var obj map[string]any
		if json.Unmarshal(args, &obj) == nil {
			t.Fatalf("%s %s: protocol error for an argument object: %s", tool, args, raw)
		}
	} else {
		for _, c := range out.Result.Content {
			if out.Result.IsError && (strings.Contains(c.Text, "the server logged the details") || strings.Contains(c.Text, "panic recovered in")) {
				t.Fatalf("%s %s: a recovered panic reached the client: %s", tool, args, c.Text)
			}
			if out.Result.IsError && (strings.Contains(c.Text, "output schema validation failed") || strings.Contains(c.Text, "invalid structured content")) {
				t.Fatalf("%s %s: the answer breaks the tool's output schema: %s", tool, args, c.Text)
			}
			if out.Result.IsError && strings.Contains(c.Text, w.base) {
				t.Fatalf("%s %s: an error shows the server's path: %s", tool, args, c.Text)
			}
		}
	}
	if logs := w.logs.take(); panicLogged.MatchString(logs) {
		t.Fatalf("%s %s: the server recovered from a panic:\n%s", tool, args, logs)
	}
	if got := listing(t, w.outside); got != w.canary {
		t.Fatalf("%s %s: the folder beside the vault changed:\n%s", tool, args, got)
	}
	entries, err := os.ReadDir(w.base)
	if err != nil || len(entries) != 2 {
		t.Fatalf("%s %s: something was created beside the vault: %v %v", tool, args, entries, err)
	}
	w.calls++
	if w.writers[tool] {
		w.gitClean(t)
	}
	if w.calls%100 == 0 {
		w.git(t, "fsck", "--strict", "--no-dangling")
	}
}

// panicLogged matches a log record whose message (our own text, never a
// client's) tells of a recovered panic.
var panicLogged = regexp.MustCompile(`msg="[^"]*panic`)

// FuzzToolArguments feeds arbitrary JSON arguments to every tool through
// the real handler layer (schema validation, handlers, vault, index,
// git). Whatever the input: no panic (not even a recovered one), no
// protocol error for an argument object, every answer true to its tool's
// output schema, no error naming the server's paths, nothing written
// outside the vault, and the vault's git always consistent with its
// worktree.
func FuzzToolArguments(f *testing.F) {
	w := newFuzzWorld(f)
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		w.call(t, name, args)
	})
}
