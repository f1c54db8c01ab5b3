package tools_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/edit"
	"vaultmcp/vault/index"
)

// notesVault is a vault that is a git repository, its changes recorded by
// gitsync (local only) and followed by the index, as the server wires it.
type notesVault struct {
	t    *testing.T
	root string
	d    tools.Deps
	repo *gitsync.Repo
}

func newNotesVault(t *testing.T, files map[string]string) *notesVault {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &notesVault{t: t, root: root}
	for rel, content := range files {
		g.write(rel, content)
	}
	g.git("init", "-q", "-b", "main")
	g.git("add", "-A")
	g.git("commit", "-q", "--allow-empty", "-m", "initial")
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	repo, err := gitsync.Open(context.Background(), gitsync.Options{Dir: root, Locker: v.Locker(), SyncInterval: -1, NoPush: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	g.repo = repo
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.d = tools.Deps{Vault: v, Index: ix, Logger: logger}
	return g
}

func (g *notesVault) write(rel, content string) {
	g.t.Helper()
	p := filepath.Join(g.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *notesVault) read(rel string) string {
	g.t.Helper()
	data, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(rel)))
	if err != nil {
		g.t.Fatal(err)
	}
	return string(data)
}

func (g *notesVault) git(args ...string) string {
	g.t.Helper()
	if g.repo != nil {
		g.repo.FlushIndex() // commits leave it in memory a while
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = g.root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (g *notesVault) commits() int {
	n, err := strconv.Atoi(g.git("rev-list", "--count", "HEAD"))
	if err != nil {
		g.t.Fatal(err)
	}
	return n
}

// oneCommit checks that exactly one commit was made since before, that
// it touched only rel, that its message starts so, and that the
// worktree is clean (the commit holds the file as written).
func (g *notesVault) oneCommit(before int, rel, message string) {
	g.t.Helper()
	if got := g.commits(); got != before+1 {
		g.t.Errorf("%d commits made, want 1", got-before)
		return
	}
	show := strings.Split(g.git("show", "--name-only", "--format=%s", "HEAD"), "\n")
	if len(show) < 3 || !strings.HasPrefix(show[0], message) || show[len(show)-1] != rel || len(show) != 3 {
		g.t.Errorf("last commit: %q, want message %q and only %s", show, message, rel)
	}
	if st := withoutTemps(g.git("status", "--porcelain")); st != "" {
		g.t.Errorf("worktree not clean after the commit:\n%s", st)
	}
}

// withoutTemps drops the server's own temporary files from `git status
// --porcelain` output: a change's backups are removed in the background
// just after it is recorded, and one may still be there.
func withoutTemps(status string) string {
	var kept []string
	for _, line := range strings.Split(status, "\n") {
		if line != "" && !strings.Contains(line, ".vaultmcp-") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// Tricky notes for the patch tests.
var trickyNotes = map[string]string{
	"dup.md":      "# Projects\n## Active\n- alpha\n## Done\n- old\n\n# Areas\n## Active\n- health\n\n",
	"code.md":     "# Real\ntext\n```bash\n# not a heading\n```\n## Sub\nsub text\n",
	"crlf.md":     "---\r\nstatus: draft\r\n---\r\n# A\r\none ^b1\r\n\r\n# B\r\ntwo\r\n",
	"nofinal.md":  "# A\nline a\n# B\nline b",
	"empty.md":    "---\n---\n# Title\nbody\n",
	"comments.md": "---\n# the note's status\nstatus: draft # until reviewed\ntags:\n  - one\n  # - two (later)\naliases: [x, y]\n---\nbody [[link]]\n",
	"nested.md":   "---\nmatrix:\n  - [1, 2]\n  - - a\n    - b\npeople:\n  - name: Ann\n    roles: [dev, ops]\ntitle: \"Quoted: yes\"\n---\n# Body\n",
}

// TestPatchNoteCommits runs patch_note's work on tricky notes through the
// real write path: the file becomes exactly what the editor makes of it
// (whose own tests pin every byte), one commit records it, and refused
// patches change and commit nothing.
func TestPatchNoteCommits(t *testing.T) {
	g := newNotesVault(t, trickyNotes)
	ctx := context.Background()
	cases := []tools.PatchNoteArgs{
		{Path: "dup.md", TargetType: "heading", Target: "Areas::Active", Operation: "append", Content: "- sleep"},
		{Path: "dup.md", TargetType: "heading", Target: "Projects::Done", Operation: "delete"},
		{Path: "code.md", TargetType: "heading", Target: "Real", Operation: "append", Content: "end"},
		{Path: "code.md", TargetType: "heading", Target: "Sub", Operation: "replace", Content: "new sub"},
		{Path: "crlf.md", TargetType: "heading", Target: "B", Operation: "prepend", Content: "first\nsecond"},
		{Path: "crlf.md", TargetType: "block", Target: "^b1", Operation: "replace", Content: "uno"},
		{Path: "crlf.md", TargetType: "frontmatter", Target: "status", Operation: "replace", Content: "done"},
		{Path: "nofinal.md", TargetType: "heading", Target: "B", Operation: "append", Content: "more"},
		{Path: "comments.md", TargetType: "frontmatter", Target: "tags", Operation: "append", Content: `["two", "three"]`},
		{Path: "comments.md", TargetType: "frontmatter", Target: "aliases", Operation: "delete"},
		{Path: "nested.md", TargetType: "frontmatter", Target: "title", Operation: "replace", Content: "Plain"},
		{Path: "nested.md", TargetType: "heading", Target: "Body", Operation: "append", Content: "text"},
	}
	for _, a := range cases {
		before := g.read(a.Path)
		want, err := edit.Apply([]byte(before), edit.Patch{Type: edit.TargetType(a.TargetType), Target: a.Target, Op: edit.Op(a.Operation), Content: a.Content})
		if err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		n := g.commits()
		res, err := tools.Patch(ctx, g.d, a)
		if err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		if got := g.read(a.Path); got != string(want) {
			t.Errorf("%+v:\ngot  %q\nwant %q", a, got, want)
		}
		if !res.Changed || res.Commit == "" || res.Bytes != len(want) {
			t.Errorf("%+v: result %+v", a, res)
		}
		g.oneCommit(n, a.Path, "MCP: patch "+a.Path+" ("+a.Operation+" "+a.TargetType)
	}

	refused := []struct {
		args tools.PatchNoteArgs
		want string
		cand []string
	}{
		{tools.PatchNoteArgs{Path: "dup.md", TargetType: "heading", Target: "Active", Operation: "append", Content: "x"}, "occurs 2 times",
			[]string{"Projects::Active (line 2)", "Areas::Active (line 6)"}},
		{tools.PatchNoteArgs{Path: "code.md", TargetType: "heading", Target: "not a heading", Operation: "append", Content: "x"}, "not found",
			[]string{"Real", "Real::Sub"}},
		{tools.PatchNoteArgs{Path: "empty.md", TargetType: "frontmatter", Target: "status", Operation: "replace", Content: "x"}, "no properties", []string{}},
		{tools.PatchNoteArgs{Path: "crlf.md", TargetType: "block", Target: "^nope", Operation: "delete"}, "not found", []string{"^b1"}},
		{tools.PatchNoteArgs{Path: "missing.md", TargetType: "heading", Target: "A", Operation: "append", Content: "x"}, "not found", nil},
		{tools.PatchNoteArgs{Path: "../out.md", TargetType: "heading", Target: "A", Operation: "append", Content: "x"}, "outside", nil},
		{tools.PatchNoteArgs{Path: "dup.md", TargetType: "heading", Target: "Areas", Operation: "append", Content: "bad \uFFFD"}, "U+FFFD", nil},
	}
	h := g.serve()
	for _, r := range refused {
		n, before := g.commits(), g.read("dup.md")
		_, err := tools.Patch(ctx, g.d, r.args)
		if err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%+v: err = %v, want %q", r.args, err, r.want)
			continue
		}
		if r.cand != nil {
			args, _ := json.Marshal(r.args)
			res := h.call("patch_note", string(args))
			got, _ := json.Marshal(res.errBody["candidates"])
			want, _ := json.Marshal(r.cand)
			if !res.isError || string(got) != string(want) {
				t.Errorf("%+v: candidates %s, want %s (%q)", r.args, got, want, res.text)
			}
		}
		if g.commits() != n || g.read("dup.md") != before {
			t.Errorf("%+v: a refused patch changed the vault", r.args)
		}
	}

	// A patch that changes nothing writes and commits nothing.
	n := g.commits()
	g.write("same.md", "# A\n")
	g.git("add", "same.md")
	g.git("commit", "-q", "-m", "same")
	res, err := tools.Patch(ctx, g.d, tools.PatchNoteArgs{Path: "same.md", TargetType: "heading", Target: "A", Operation: "replace", Content: ""})
	if err != nil || res.Changed || res.Commit != "" || g.commits() != n+1 {
		t.Errorf("no-op patch: %+v, %v", res, err)
	}
}

// serve assembles the MCP server over g's Deps, for what only the wire
// shows (error fields, output schemas).
func (g *notesVault) serve() *harness {
	g.t.Helper()
	s, err := mcpserver.New(g.d, "test")
	if err != nil {
		g.t.Fatal(err)
	}
	h := &harness{t: g.t, root: g.root, v: g.d.Vault, s: s}
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	return h
}

// TestSetPropertiesCommits: set_properties on tricky notes through the
// real write path, one commit each, untouched keys byte for byte.
func TestSetPropertiesCommits(t *testing.T) {
	g := newNotesVault(t, trickyNotes)
	ctx := context.Background()
	cases := []struct {
		path, props string
		remove      []string
		want        string
		change      [4]int // set, added, removed, unchanged
	}{
		{"comments.md", `{"status": "done", "priority": 2, "due": "2026-02-01"}`, []string{"aliases"},
			"---\n# the note's status\nstatus: done # until reviewed\ntags:\n  - one\n  # - two (later)\npriority: 2\ndue: 2026-02-01\n---\nbody [[link]]\n", [4]int{1, 2, 1, 0}},
		{"empty.md", `{"tags": ["a", "b/c"], "done": false}`, nil, "---\ntags:\n  - a\n  - b/c\ndone: false\n---\n# Title\nbody\n", [4]int{0, 2, 0, 0}},
		{"nofinal.md", `{"up": "[[Home]]"}`, nil, "---\nup: \"[[Home]]\"\n---\n# A\nline a\n# B\nline b", [4]int{0, 1, 0, 0}},
		{"crlf.md", `{"status": null}`, []string{"nope"}, "---\r\nstatus:\r\n---\r\n# A\r\none ^b1\r\n\r\n# B\r\ntwo\r\n", [4]int{1, 0, 0, 1}},
		{"nested.md", `{"title": "New: title", "matrix": [[1, 2], ["a", "b"]]}`, nil,
			strings.Replace(trickyNotes["nested.md"], `title: "Quoted: yes"`, `title: "New: title"`, 1), [4]int{1, 0, 0, 1}},
	}
	for _, tc := range cases {
		n := g.commits()
		res, err := tools.UpdateProperties(ctx, g.d, tools.SetPropertiesArgs{Path: tc.path, Properties: json.RawMessage(tc.props), Remove: tc.remove})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if got := g.read(tc.path); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.path, got, tc.want)
		}
		if got := [4]int{len(res.Set), len(res.Added), len(res.Removed), len(res.Unchanged)}; got != tc.change || !res.Changed {
			t.Errorf("%s: result %+v", tc.path, res)
		}
		g.oneCommit(n, tc.path, "MCP: set properties of "+tc.path)
	}

	// Setting what is already there changes and commits nothing.
	n := g.commits()
	res, err := tools.UpdateProperties(ctx, g.d, tools.SetPropertiesArgs{Path: "empty.md", Properties: json.RawMessage(`{"done": false}`)})
	if err != nil || res.Changed || res.Commit != "" || g.commits() != n || len(res.Unchanged) != 1 {
		t.Errorf("no-op set: %+v, %v", res, err)
	}
	for _, bad := range []tools.SetPropertiesArgs{
		{Path: "empty.md"},
		{Path: "empty.md", Properties: json.RawMessage(`{"a": 1}`), Remove: []string{"a"}},
		{Path: "empty.md", Properties: json.RawMessage(`{"": 1}`)},
		{Path: "missing.md", Properties: json.RawMessage(`{"a": 1}`)},
	} {
		if _, err := tools.UpdateProperties(ctx, g.d, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if g.commits() != n {
		t.Errorf("refused calls committed")
	}
}

// Properties belong to notes: get_properties, set_properties and a
// frontmatter patch_note refuse any other file, whose content a frontmatter block would corrupt
// (data.json gained "---\nstatus: x\n---\n" before its JSON). A heading
// patch of a text file is a text edit, as before.
func TestPropertiesOfNotesOnly(t *testing.T) {
	files := map[string]string{"data.json": "{\"a\": 1}\n", "table.csv": "a,b\n1,2\n", "plain": "x\n", "notes.txt": "# Log\nline\n"}
	g := newNotesVault(t, files)
	ctx := context.Background()
	n := g.commits()
	tests := []struct {
		name string
		call func() error
	}{
		{"set_properties data.json", func() error {
			_, err := tools.UpdateProperties(ctx, g.d, tools.SetPropertiesArgs{Path: "data.json", Properties: json.RawMessage(`{"status": "x"}`)})
			return err
		}},
		{"set_properties removing from a file without extension", func() error {
			_, err := tools.UpdateProperties(ctx, g.d, tools.SetPropertiesArgs{Path: "plain", Remove: []string{"status"}})
			return err
		}},
		{"patch_note frontmatter table.csv", func() error {
			_, err := tools.Patch(ctx, g.d, tools.PatchNoteArgs{Path: "table.csv", TargetType: "frontmatter", Target: "status", Operation: "replace", Content: "x"})
			return err
		}},
	}
	for _, tt := range tests {
		err := tt.call()
		if err == nil || !strings.Contains(err.Error(), "is not a note: properties are the frontmatter of .md notes") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	for rel, want := range files {
		if got := g.read(rel); got != want {
			t.Errorf("%s changed: %q", rel, got)
		}
	}
	if g.commits() != n {
		t.Errorf("refused calls committed")
	}
	for given, want := range map[string]string{
		"data.json": "data.json is not a note: properties are the frontmatter of .md notes",
		"gone.json": "not found",
		"notes.txt": "notes.txt is not a note",
	} {
		if _, err := tools.Properties(ctx, g.d, tools.GetPropertiesArgs{Path: given}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("get_properties %s: %v, want %q", given, err, want)
		}
	}
	if _, err := tools.Patch(ctx, g.d, tools.PatchNoteArgs{Path: "notes.txt", TargetType: "heading", Target: "Log", Operation: "append", Content: "more"}); err != nil {
		t.Errorf("heading patch of notes.txt: %v", err)
	}
}

// TestPropertiesOverTheWire: get_properties and set_properties answer in
// their output schemas, keys in the order written.
func TestPropertiesOverTheWire(t *testing.T) {
	g := newNotesVault(t, trickyNotes)
	h := g.serve()
	got := h.ok("get_properties", `{"path": "nested.md"}`)
	want := `{"path":"nested.md","properties":{"matrix":[[1,2],["a","b"]],"people":[{"name":"Ann","roles":["dev","ops"]}],"title":"Quoted: yes"},"types":{"matrix":"list","people":"list","title":"text"},"version":"876fb14a6eb86d49fbaa57d514588baefca49d12"}`
	if got != want {
		t.Errorf("get_properties:\n%s\nwant\n%s", got, want)
	}
	h.ok("set_properties", `{"path": "empty.md", "properties": {"zeta": 1, "alpha": [true]}}`)
	if got := g.read("empty.md"); got != "---\nzeta: 1\nalpha:\n  - true\n---\n# Title\nbody\n" {
		t.Errorf("order not kept: %q", got)
	}
	r := h.fails("get_properties", `{"path": "bad.md"}`, "not found")
	_ = r
	g.write("bad.md", "---\na: [\n---\n")
	h.fails("get_properties", `{"path": "bad.md"}`, "not valid YAML")
	h.fails("set_properties", `{"path": "bad.md", "properties": {"b": 1}}`, "not valid YAML")
}
