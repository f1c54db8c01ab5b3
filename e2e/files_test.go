package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fileTools are the seven tools of the file and directory
// operations, with the arguments each one requires.
var fileTools = map[string][]string{
	"read_file":        {"path"},
	"write_file":       {"content", "path"},
	"edit_file":        {"new_text", "old_text", "path"},
	"delete_file":      {"path"},
	"rename_file":      {"new_path", "old_path"},
	"list_directory":   {"path"},
	"create_directory": {"path"},
}

// readOnlyTools change nothing; every other file tool writes.
var readOnlyTools = map[string]bool{"read_file": true, "list_directory": true}

// fixture is the vault most file tests start from.
func fixture() map[string]string {
	return map[string]string{
		"Welcome.md":           "# Welcome\n",
		"notes/a.md":           "# A\nsame\nsame\nunique line\n",
		"notes/b.md":           "# B\n",
		"notes/crlf.md":        "first\r\nsecond\r\nthird\r\n",
		"notes/.claude/x":      "hidden\n",
		"folder/inner.md":      "inner\n",
		"folder/deep/leaf.md":  "leaf\n",
		".claude/settings.md":  "hidden\n",
		".obsidian/app.json":   "{}\n",
		".trash/old.md":        "old\n",
		"Zeta.md":              "z\n",
		"attachments/blob.bin": "\x00\x01\x02",
	}
}

func TestInitializeInstructions(t *testing.T) {
	t.Parallel()
	t.Run("root CLAUDE.md", func(t *testing.T) {
		t.Parallel()
		const claude = "# Vault rules\n\nUse kebab-case file names.\nDaily notes live in `daily/`.\n"
		v := newVault(t, map[string]string{"sub/CLAUDE.md": "# not the root one\n"})
		// Not committed yet: the instructions come from the file on disk.
		v.write(t, "CLAUDE.md", claude)
		s := startSession(t, v, withDirtyVault())
		if s.init.Instructions != claude {
			t.Errorf("instructions = %q, want the root CLAUDE.md %q", s.init.Instructions, claude)
		}
		if s.init.ServerInfo.Name != "vaultmcp" {
			t.Errorf("serverInfo.name = %q, want vaultmcp", s.init.ServerInfo.Name)
		}
		if s.init.Capabilities.Tools == nil {
			t.Errorf("capabilities has no tools")
		}
	})
	t.Run("default without CLAUDE.md", func(t *testing.T) {
		t.Parallel()
		v := newVault(t, map[string]string{"note.md": "x\n"}, withoutGit())
		s := startSession(t, v)
		if strings.TrimSpace(s.init.Instructions) == "" {
			t.Fatal("instructions are empty for a vault without CLAUDE.md; want a default text")
		}
		wantContains(t, "default instructions", s.init.Instructions, "Obsidian", "vault")
	})
	t.Run("raw initialize", func(t *testing.T) {
		t.Parallel()
		const claude = "Raw client rules.\n"
		v := newVault(t, map[string]string{"CLAUDE.md": claude})
		r := startRaw(t, v)
		var init struct {
			Instructions *string `json:"instructions"`
		}
		if err := json.Unmarshal(r.initResult, &init); err != nil || init.Instructions == nil {
			t.Fatalf("initialize result has no instructions: %s (%v)", r.initResult, err)
		}
		if *init.Instructions != claude {
			t.Errorf("instructions on the wire = %q, want %q", *init.Instructions, claude)
		}
	})
}

func TestToolsList(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil)
	s := startSession(t, v)
	tools := s.listTools(t)
	seen := map[string]bool{}
	for _, tool := range tools {
		seen[tool.Name] = true
		a := tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations not all set explicitly: readOnly=%v destructive=%v idempotent=%v openWorld=%v",
				tool.Name, a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint)
		}
		if strings.TrimSpace(tool.Description) == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	for name := range fileTools {
		if !seen[name] {
			t.Errorf("tools/list lacks %s", name)
		}
	}

	// The wire form, as every client sees it.
	r := startRaw(t, v)
	resp := r.request(t, "tools/list", []byte(`{}`))
	if resp.Error != nil {
		t.Fatalf("tools/list: %s", resp.Error.Message)
	}
	var list struct {
		Tools []struct {
			Name        string                     `json:"name"`
			InputSchema map[string]json.RawMessage `json:"inputSchema"`
			Annotations map[string]json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(resp.Result, &list); err != nil {
		t.Fatalf("tools/list result: %v", err)
	}
	for _, tool := range list.Tools {
		if got := string(tool.InputSchema["additionalProperties"]); got != "false" {
			t.Errorf("%s: inputSchema.additionalProperties = %s, want false", tool.Name, orMissing(got))
		}
		if got := string(tool.InputSchema["type"]); got != `"object"` {
			t.Errorf("%s: inputSchema.type = %s, want \"object\"", tool.Name, orMissing(got))
		}
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if got := string(tool.Annotations[hint]); got != "true" && got != "false" {
				t.Errorf("%s: annotations.%s = %s, want an explicit boolean", tool.Name, hint, orMissing(got))
			}
		}
		want, ours := fileTools[tool.Name]
		if !ours {
			continue
		}
		var required []string
		if err := json.Unmarshal(tool.InputSchema["required"], &required); err != nil {
			t.Errorf("%s: inputSchema.required: %v", tool.Name, err)
		}
		slices.Sort(required)
		if !slices.Equal(required, want) {
			t.Errorf("%s: required = %v, want %v", tool.Name, required, want)
		}
		ro := string(tool.Annotations["readOnlyHint"]) == "true"
		if ro != readOnlyTools[tool.Name] {
			t.Errorf("%s: readOnlyHint = %v, want %v", tool.Name, ro, readOnlyTools[tool.Name])
		}
		if got := string(tool.Annotations["openWorldHint"]); got != "false" {
			t.Errorf("%s: openWorldHint = %s, want false (the vault is a closed world)", tool.Name, got)
		}
	}
}

func orMissing(s string) string {
	if s == "" {
		return "(missing)"
	}
	return s
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	s := startSession(t, v)
	if got := s.ok(t, "read_file", map[string]any{"path": "notes/a.md"}); got != v.read(t, "notes/a.md") {
		t.Errorf("read_file notes/a.md = %q", got)
	}
	// Clients sometimes echo an absolute path inside the vault back.
	if got := s.ok(t, "read_file", map[string]any{"path": v.path("notes/b.md")}); got != "# B\n" {
		t.Errorf("read_file by absolute path inside the vault = %q", got)
	}
	if got := s.ok(t, "read_file", map[string]any{"path": "./folder//deep/../inner.md"}); got != "inner\n" {
		t.Errorf("read_file of an uncleaned path = %q", got)
	}
	// A symlink that stays inside the vault is followed.
	v.symlink(t, "alias.md", "notes/b.md")
	if got := s.ok(t, "read_file", map[string]any{"path": "alias.md"}); got != "# B\n" {
		t.Errorf("read_file through an inside symlink = %q", got)
	}
	if got := s.ok(t, "read_file", map[string]any{"path": "notes/crlf.md"}); got != "first\r\nsecond\r\nthird\r\n" {
		t.Errorf("read_file must return CRLF bytes as they are, got %q", got)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	s := startSession(t, v)

	const content = "# New\n\nLinks to [[a]]. Ünïcödé ✓ 🚀\n"
	got := s.ok(t, "write_file", map[string]any{"path": "new/deeper/note.md", "content": content})
	wantContains(t, "write_file result", got, "new/deeper/note.md")
	if disk := v.read(t, "new/deeper/note.md"); disk != content {
		t.Errorf("on disk: %q, want %q", disk, content)
	}
	if back := s.ok(t, "read_file", map[string]any{"path": "new/deeper/note.md"}); back != content {
		t.Errorf("read back: %q", back)
	}

	// Overwriting keeps the file's mode.
	if err := os.Chmod(v.path("notes/b.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.ok(t, "write_file", map[string]any{"path": "notes/b.md", "content": "replaced"})
	if disk := v.read(t, "notes/b.md"); disk != "replaced" {
		t.Errorf("overwrite: on disk %q", disk)
	}
	if fi, err := os.Stat(v.path("notes/b.md")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("overwrite changed the mode: %v %v, want 0600", fi.Mode().Perm(), err)
	}

	// Empty content is a valid (empty) file.
	s.ok(t, "write_file", map[string]any{"path": "empty.md", "content": ""})
	if disk := v.read(t, "empty.md"); disk != "" {
		t.Errorf("empty write: on disk %q", disk)
	}
	noTempFiles(t, v)
}

// noTempFiles fails if an atomic write left a temporary file behind.
func noTempFiles(t *testing.T, v *testVault) {
	t.Helper()
	filepath.WalkDir(v.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestEditFile(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	s := startSession(t, v)

	got := s.ok(t, "edit_file", map[string]any{"path": "notes/a.md", "old_text": "unique line", "new_text": "edited line"})
	wantContains(t, "edit_file result", got, "notes/a.md")
	if disk := v.read(t, "notes/a.md"); disk != "# A\nsame\nsame\nedited line\n" {
		t.Errorf("after edit: %q", disk)
	}
	// Deleting text: new_text may be empty.
	s.ok(t, "edit_file", map[string]any{"path": "notes/a.md", "old_text": "# A\n", "new_text": ""})
	if disk := v.read(t, "notes/a.md"); disk != "same\nsame\nedited line\n" {
		t.Errorf("after deleting text: %q", disk)
	}
	// CRLF file: the client sends LF, the file keeps CRLF.
	s.ok(t, "edit_file", map[string]any{"path": "notes/crlf.md", "old_text": "first\nsecond", "new_text": "one\ntwo\nthree"})
	if disk := v.read(t, "notes/crlf.md"); disk != "one\r\ntwo\r\nthree\r\nthird\r\n" {
		t.Errorf("CRLF edit: on disk %q, want CRLF line ends kept", disk)
	}
	// A single-line edit on a CRLF file touches nothing else.
	s.ok(t, "edit_file", map[string]any{"path": "notes/crlf.md", "old_text": "third", "new_text": "3rd"})
	if disk := v.read(t, "notes/crlf.md"); disk != "one\r\ntwo\r\nthree\r\n3rd\r\n" {
		t.Errorf("CRLF single-line edit: on disk %q", disk)
	}
	noTempFiles(t, v)
}

func TestDeleteFile(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	s := startSession(t, v)
	got := s.ok(t, "delete_file", map[string]any{"path": "notes/b.md"})
	wantContains(t, "delete_file result", got, "notes/b.md")
	if v.exists("notes/b.md") {
		t.Error("notes/b.md still on disk after delete_file")
	}
	msg := s.fail(t, "read_file", map[string]any{"path": "notes/b.md"})
	wantContains(t, "read after delete", msg, "not found", "notes/b.md")
	s.ok(t, "delete_file", map[string]any{"path": "folder/inner.md"})
	if v.exists("folder/inner.md") || !v.exists("folder/deep/leaf.md") {
		t.Error("delete_file removed the wrong things")
	}
}

func TestRenameFile(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	s := startSession(t, v)
	before := v.read(t, "notes/a.md")
	got := s.ok(t, "rename_file", map[string]any{"old_path": "notes/a.md", "new_path": "archive/2026/a-moved.md"})
	wantContains(t, "rename_file result", got, "notes/a.md", "archive/2026/a-moved.md")
	if v.exists("notes/a.md") {
		t.Error("source still exists after rename")
	}
	if after := v.read(t, "archive/2026/a-moved.md"); after != before {
		t.Errorf("renamed content = %q, want %q", after, before)
	}
	// A plain rename within one folder.
	s.ok(t, "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": "notes/B renamed.md"})
	if v.read(t, "notes/B renamed.md") != "# B\n" || v.exists("notes/b.md") {
		t.Error("rename within a folder went wrong")
	}
}

func TestListDirectory(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	v.symlink(t, "outlink", v.Outside)
	s := startSession(t, v)

	root := "[directory] attachments/\n[directory] folder/\n[directory] notes/\n[file] Welcome.md\n[file] Zeta.md"
	for _, p := range []string{"", "/", "."} {
		if got := s.ok(t, "list_directory", map[string]any{"path": p}); got != root {
			t.Errorf("list_directory %q =\n%s\nwant\n%s", p, got, root)
		}
	}
	got := s.ok(t, "list_directory", map[string]any{"path": "folder", "recursive": true})
	want := "[directory] folder/deep/\n[file] folder/deep/leaf.md\n[file] folder/inner.md"
	if got != want {
		t.Errorf("recursive listing =\n%s\nwant\n%s", got, want)
	}
	got = s.ok(t, "list_directory", map[string]any{"path": "folder", "recursive": true, "max_depth": 1})
	if want := "[directory] folder/deep/\n[file] folder/inner.md"; got != want {
		t.Errorf("max_depth 1 =\n%s\nwant\n%s", got, want)
	}
	got = s.ok(t, "list_directory", map[string]any{"path": "", "recursive": true})
	for _, hidden := range []string{".git", ".claude", ".obsidian", ".trash", "outlink"} {
		if strings.Contains(got, hidden) {
			t.Errorf("recursive root listing shows %s:\n%s", hidden, got)
		}
	}
	wantContains(t, "recursive root listing", got, "[file] folder/deep/leaf.md", "[file] notes/crlf.md", "[file] attachments/blob.bin")

	s.ok(t, "create_directory", map[string]any{"path": "emptydir"})
	got = s.ok(t, "list_directory", map[string]any{"path": "emptydir"})
	wantContains(t, "empty folder listing", got, "empty")
}

func TestCreateDirectory(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	s := startSession(t, v)
	got := s.ok(t, "create_directory", map[string]any{"path": "projects/web/app"})
	wantContains(t, "create_directory result", got, "projects/web/app")
	if fi, err := os.Stat(v.path("projects/web/app")); err != nil || !fi.IsDir() {
		t.Fatalf("folder not created: %v", err)
	}
	// An existing folder is fine and says so.
	got = s.ok(t, "create_directory", map[string]any{"path": "projects/web"})
	wantContains(t, "create_directory on an existing folder", got, "exists")
	// A write into the new folder works.
	s.ok(t, "write_file", map[string]any{"path": "projects/web/app/readme.md", "content": "hi\n"})
}

func TestUnicodeNormalization(t *testing.T) {
	t.Parallel()
	const (
		nfc = "Caf\u00e9"  // é as one code point (what most clients send)
		nfd = "Cafe\u0301" // e + combining acute (what macOS stores)
	)
	v := newVault(t, map[string]string{
		"notes/" + nfd + ".md":       "stored NFD\n",
		nfd + " folder/inside.md":    "in an NFD folder\n",
		"other/" + nfc + " NFC.md":   "stored NFC\n",
		"plain/placeholder.md":       "x\n",
		"notes/ascii-neighbour.md":   "y\n",
		"notes/" + nfd + " other.md": "z\n",
	})
	s := startSession(t, v)
	if got := s.ok(t, "read_file", map[string]any{"path": "notes/" + nfc + ".md"}); got != "stored NFD\n" {
		t.Errorf("NFC name of an NFD file: read %q", got)
	}
	if got := s.ok(t, "read_file", map[string]any{"path": nfc + " folder/inside.md"}); got != "in an NFD folder\n" {
		t.Errorf("NFC name of an NFD folder: read %q", got)
	}
	if got := s.ok(t, "read_file", map[string]any{"path": "other/" + nfd + " NFC.md"}); got != "stored NFC\n" {
		t.Errorf("NFD name of an NFC file: read %q", got)
	}
	// Writing and editing by the NFC name changes the NFD file, never a twin.
	s.ok(t, "write_file", map[string]any{"path": "notes/" + nfc + ".md", "content": "rewritten\n"})
	s.ok(t, "edit_file", map[string]any{"path": "notes/" + nfc + ".md", "old_text": "rewritten", "new_text": "edited"})
	if got := v.read(t, "notes/"+nfd+".md"); got != "edited\n" {
		t.Errorf("NFD file after write+edit by NFC name: %q", got)
	}
	if v.exists("notes/" + nfc + ".md") {
		t.Errorf("write by NFC name created a second file beside the NFD one")
	}
	s.ok(t, "write_file", map[string]any{"path": nfc + " folder/new.md", "content": "new\n"})
	if v.exists(nfc+" folder") || v.read(t, nfd+" folder/new.md") != "new\n" {
		t.Errorf("write into an NFD folder by its NFC name created a twin folder")
	}
}

func TestBinaryRead(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00\xff", 600)
	v := newVault(t, map[string]string{"attachments/pic.png": png, "data.bin": "ab\x00cd"})
	s := startSession(t, v)
	got := s.ok(t, "read_file", map[string]any{"path": "attachments/pic.png"})
	wantContains(t, "binary read", got, "binary", "image/png", "KB")
	if strings.ContainsRune(got, 0) || !utf8.ValidString(got) || strings.Contains(got, "IHDR") {
		t.Errorf("binary read dumped the bytes: %q", got)
	}
	got = s.ok(t, "read_file", map[string]any{"path": "data.bin"})
	wantContains(t, "binary read", got, "binary", "5 bytes")
}

func TestLargeRead(t *testing.T) {
	t.Parallel()
	const limit = 1000
	// One ASCII byte, then two-byte runes: the limit falls inside a rune.
	big := "x" + strings.Repeat("é", 2500)
	exact := strings.Repeat("a", limit)
	v := newVault(t, map[string]string{"big.md": big, "exact.md": exact})
	s := startSession(t, v, withEnv(fmt.Sprintf("VAULTMCP_VAULT_MAX_READ_BYTES=%d", limit)))

	got := s.ok(t, "read_file", map[string]any{"path": "big.md"})
	if !utf8.ValidString(got) {
		t.Errorf("a cut read is not valid UTF-8 (a rune was split): %q", got[len(got)-100:])
	}
	head, notice, found := strings.Cut(got, "\n\n[")
	if !found {
		t.Fatalf("large read has no truncation notice; got %d bytes ending %q", len(got), got[max(0, len(got)-100):])
	}
	if len(head) > limit || len(head) < limit-utf8.UTFMax || !strings.HasPrefix(big, head) {
		t.Errorf("cut read returned %d bytes of content, want the first ~%d bytes of the file", len(head), limit)
	}
	wantContains(t, "truncation notice", notice, "truncated")
	if got := s.ok(t, "read_file", map[string]any{"path": "exact.md"}); got != exact {
		t.Errorf("a file of exactly the limit was cut or changed (%d bytes)", len(got))
	}
}

// refusal is a call that must fail with a message naming the problem and
// leave the vault as it was.
type refusal struct {
	name string
	tool string
	args map[string]any
	want []string // substrings of the error message, any case
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	if err := os.WriteFile(filepath.Join(v.Outside, "secret.md"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.symlink(t, "link.md", filepath.Join(v.Outside, "secret.md"))
	v.symlink(t, "outlink", v.Outside)
	v.symlink(t, "relout", "../outside")
	v.symlink(t, "dangling.md", filepath.Join(v.Outside, "nothing.md"))
	s := startSession(t, v)

	const outside = "outside the vault"
	abs := filepath.Join(v.Outside, "abs.md")
	cases := []refusal{
		// Traversal and absolute paths.
		{"read ../", "read_file", map[string]any{"path": "../outside/secret.md"}, []string{outside}},
		{"write ../x.md", "write_file", map[string]any{"path": "../x.md", "content": "x"}, []string{outside, "../x.md"}},
		{"edit ../", "edit_file", map[string]any{"path": "../outside/secret.md", "old_text": "secret", "new_text": "pwned"}, []string{outside}},
		{"delete ../", "delete_file", map[string]any{"path": "../outside/secret.md"}, []string{outside}},
		{"rename from ../", "rename_file", map[string]any{"old_path": "../outside/secret.md", "new_path": "stolen.md"}, []string{outside}},
		{"rename to ../", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": "../b.md"}, []string{outside}},
		{"list ../", "list_directory", map[string]any{"path": ".."}, []string{outside}},
		{"mkdir ../", "create_directory", map[string]any{"path": "../newdir"}, []string{outside}},
		{"read /etc/passwd", "read_file", map[string]any{"path": "/etc/passwd"}, []string{outside, "/etc/passwd"}},
		{"list /etc", "list_directory", map[string]any{"path": "/etc"}, []string{outside}},
		{"write absolute outside", "write_file", map[string]any{"path": abs, "content": "x"}, []string{outside}},
		{"read a/../../x", "read_file", map[string]any{"path": "a/../../x"}, []string{outside, "a/../../x"}},
		{"write a/../../x", "write_file", map[string]any{"path": "a/../../x", "content": "x"}, []string{outside}},
		{"read notes/../../", "read_file", map[string]any{"path": "notes/../../outside/secret.md"}, []string{outside}},

		// Symlinks leading out of the vault.
		{"read symlink out", "read_file", map[string]any{"path": "link.md"}, []string{outside, "link.md"}},
		{"write symlink out", "write_file", map[string]any{"path": "link.md", "content": "pwned"}, []string{outside}},
		{"edit symlink out", "edit_file", map[string]any{"path": "link.md", "old_text": "secret", "new_text": "pwned"}, []string{outside}},
		{"delete symlink out", "delete_file", map[string]any{"path": "link.md"}, []string{outside}},
		{"rename symlink out", "rename_file", map[string]any{"old_path": "link.md", "new_path": "notes/link.md"}, []string{outside}},
		{"read via symlinked folder", "read_file", map[string]any{"path": "outlink/secret.md"}, []string{outside}},
		{"write new file below symlinked folder", "write_file", map[string]any{"path": "outlink/new.md", "content": "x"}, []string{outside}},
		{"write deep below symlinked folder", "write_file", map[string]any{"path": "outlink/a/b/new.md", "content": "x"}, []string{outside}},
		{"write below relative symlinked folder", "write_file", map[string]any{"path": "relout/new.md", "content": "x"}, []string{outside}},
		{"mkdir below symlinked folder", "create_directory", map[string]any{"path": "outlink/sub"}, []string{outside}},
		{"list symlinked folder", "list_directory", map[string]any{"path": "outlink"}, []string{outside}},
		{"rename into symlinked folder", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": "outlink/b.md"}, []string{outside}},
		{"write dangling symlink out", "write_file", map[string]any{"path": "dangling.md", "content": "x"}, []string{"dangling.md"}},

		// Hidden directories.
		{"read .git/config", "read_file", map[string]any{"path": ".git/config"}, []string{"hidden", ".git"}},
		{"write .git/config", "write_file", map[string]any{"path": ".git/config", "content": "x"}, []string{"hidden"}},
		{"write .GIT/config", "write_file", map[string]any{"path": ".GIT/config", "content": "x"}, []string{"hidden"}},
		{"write .git/hooks new", "write_file", map[string]any{"path": ".git/hooks/post-commit", "content": "#!/bin/sh\n"}, []string{"hidden"}},
		{"list .git", "list_directory", map[string]any{"path": ".git"}, []string{"hidden"}},
		{"read notes/.claude/x", "read_file", map[string]any{"path": "notes/.claude/x"}, []string{"hidden", ".claude"}},
		{"write notes/.claude/x", "write_file", map[string]any{"path": "notes/.claude/x", "content": "x"}, []string{"hidden"}},
		{"delete notes/.claude/x", "delete_file", map[string]any{"path": "notes/.claude/x"}, []string{"hidden"}},
		{"mkdir .claude/sub", "create_directory", map[string]any{"path": ".claude/sub"}, []string{"hidden"}},
		{"rename into .git", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": ".git/b.md"}, []string{"hidden"}},
		{"rename out of .claude", "rename_file", map[string]any{"old_path": ".claude/settings.md", "new_path": "s.md"}, []string{"hidden"}},
		{"read hidden via ..", "read_file", map[string]any{"path": "notes/../.git/HEAD"}, []string{"hidden"}},

		// NUL bytes and empty paths.
		{"read NUL", "read_file", map[string]any{"path": "notes/a\x00.md"}, []string{"NUL"}},
		{"write NUL", "write_file", map[string]any{"path": "notes/x\x00.md", "content": "x"}, []string{"NUL"}},
		{"write NUL dir", "write_file", map[string]any{"path": "no\x00tes/x.md", "content": "x"}, []string{"NUL"}},
		{"read empty", "read_file", map[string]any{"path": ""}, []string{"required"}},
		{"write empty", "write_file", map[string]any{"path": "", "content": "x"}, []string{"required"}},
		{"edit empty", "edit_file", map[string]any{"path": "", "old_text": "a", "new_text": "b"}, []string{"required"}},
		{"delete empty", "delete_file", map[string]any{"path": ""}, []string{"required"}},
		{"rename from empty", "rename_file", map[string]any{"old_path": "", "new_path": "x.md"}, []string{"required"}},
		{"rename to empty", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": ""}, []string{"required"}},
		{"mkdir empty", "create_directory", map[string]any{"path": ""}, []string{"required"}},
		{"write vault root", "write_file", map[string]any{"path": "/", "content": "x"}, []string{"directory"}},
		{"delete vault root", "delete_file", map[string]any{"path": "/"}, []string{"directory"}},

		// edit_file matching.
		{"edit 0 matches", "edit_file", map[string]any{"path": "notes/a.md", "old_text": "absent text", "new_text": "x"}, []string{"not found"}},
		{"edit 2 matches", "edit_file", map[string]any{"path": "notes/a.md", "old_text": "same", "new_text": "x"}, []string{"2 times"}},
		{"edit 2 matches CRLF", "edit_file", map[string]any{"path": "notes/crlf.md", "old_text": "d\n", "new_text": "x"}, []string{"2 times"}},
		{"edit empty old_text", "edit_file", map[string]any{"path": "notes/a.md", "old_text": "", "new_text": "x"}, []string{"old_text"}},
		{"edit missing file", "edit_file", map[string]any{"path": "notes/missing.md", "old_text": "a", "new_text": "b"}, []string{"not found"}},
		{"edit a folder", "edit_file", map[string]any{"path": "notes", "old_text": "a", "new_text": "b"}, []string{"directory"}},

		// Existing targets, folders, files in the way.
		{"rename onto existing", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": "notes/a.md"}, []string{"exists", "notes/a.md"}},
		{"rename onto itself", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": "notes/b.md"}, []string{"same"}},
		{"rename a folder", "rename_file", map[string]any{"old_path": "folder", "new_path": "folder2"}, []string{"directory"}},
		{"rename missing", "rename_file", map[string]any{"old_path": "notes/missing.md", "new_path": "x.md"}, []string{"not found"}},
		{"rename below a file", "rename_file", map[string]any{"old_path": "notes/b.md", "new_path": "notes/a.md/b.md"}, []string{"is a file"}},
		{"delete a folder", "delete_file", map[string]any{"path": "folder"}, []string{"directory", "folder"}},
		{"delete missing", "delete_file", map[string]any{"path": "notes/missing.md"}, []string{"not found"}},
		{"write below a file", "write_file", map[string]any{"path": "notes/a.md/child.md", "content": "x"}, []string{"is a file"}},
		{"write deep below a file", "write_file", map[string]any{"path": "notes/a.md/x/y.md", "content": "x"}, []string{"is a file"}},
		{"write onto a folder", "write_file", map[string]any{"path": "folder", "content": "x"}, []string{"directory"}},
		{"mkdir below a file", "create_directory", map[string]any{"path": "notes/a.md/sub"}, []string{"is a file"}},
		{"mkdir onto a file", "create_directory", map[string]any{"path": "notes/a.md"}, []string{"exists"}},
		{"read missing", "read_file", map[string]any{"path": "notes/missing.md"}, []string{"not found", "notes/missing.md"}},
		{"read a folder", "read_file", map[string]any{"path": "folder"}, []string{"directory"}},
		{"list a file", "list_directory", map[string]any{"path": "notes/a.md"}, []string{"not a directory"}},
		{"list missing", "list_directory", map[string]any{"path": "nowhere"}, []string{"not found"}},

		// Arguments that do not fit the schema.
		{"read no arguments", "read_file", nil, []string{"missing", "path"}},
		{"write without content", "write_file", map[string]any{"path": "x.md"}, []string{"missing", "content"}},
		{"edit without new_text", "edit_file", map[string]any{"path": "notes/a.md", "old_text": "same"}, []string{"missing", "new_text"}},
		{"rename without new_path", "rename_file", map[string]any{"old_path": "notes/a.md"}, []string{"missing", "new_path"}},
		{"unknown argument", "read_file", map[string]any{"path": "notes/a.md", "bogus": true}, []string{"unknown", "bogus"}},
		{"misspelled argument", "write_file", map[string]any{"file_path": "x.md", "content": "x"}, []string{"file_path"}},
		{"path is a number", "read_file", map[string]any{"path": 5}, []string{"path"}},
		{"content is an object", "write_file", map[string]any{"path": "x.md", "content": map[string]any{"a": 1}}, []string{"content"}},
		{"max_depth is a string", "list_directory", map[string]any{"path": "", "recursive": true, "max_depth": "2"}, []string{"max_depth"}},
		{"max_depth is 0", "list_directory", map[string]any{"path": "", "recursive": true, "max_depth": 0}, []string{"max_depth"}},
		{"recursive is a string", "list_directory", map[string]any{"path": "", "recursive": "yes"}, []string{"recursive"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := v.snapshot(t)
			msg := s.fail(t, c.tool, c.args)
			wantContains(t, "error", msg, c.want...)
			v.unchanged(t, before)
		})
	}
	if got := v.read(t, "notes/b.md"); got != "# B\n" {
		t.Errorf("notes/b.md changed by refused calls: %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(v.Outside, "secret.md")); err != nil || string(data) != "secret\n" {
		t.Errorf("the file outside the vault was touched: %q %v", data, err)
	}

	t.Run("unknown tool", func(t *testing.T) {
		res, err := s.callResult("no_such_tool", map[string]any{})
		if err == nil && (res == nil || !res.IsError) {
			t.Errorf("calling an unknown tool succeeded: %+v", res)
		}
	})
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	v := newVault(t, fixture())
	r := startRaw(t, v)
	cases := []struct {
		name, tool string
		args       []byte // raw JSON, sent as is
	}{
		{"write raw invalid bytes", "write_file", []byte("{\"path\":\"notes/new.md\",\"content\":\"caf\xe9 \xff\xfe\"}")},
		{"overwrite raw invalid bytes", "write_file", []byte("{\"path\":\"notes/b.md\",\"content\":\"# B\\n\xc3\x28\"}")},
		{"write truncated sequence", "write_file", []byte("{\"path\":\"notes/new.md\",\"content\":\"ok \xe2\x82\"}")},
		{"write lone surrogate", "write_file", []byte(`{"path":"notes/new.md","content":"bad \ud800 text"}`)},
		{"write lone low surrogate", "write_file", []byte(`{"path":"notes/b.md","content":"bad \udc00"}`)},
		{"edit new_text invalid bytes", "edit_file", []byte("{\"path\":\"notes/a.md\",\"old_text\":\"unique line\",\"new_text\":\"x\xff\"}")},
		{"edit new_text lone surrogate", "edit_file", []byte(`{"path":"notes/a.md","old_text":"unique line","new_text":"\ud83d"}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := v.snapshot(t)
			msg := r.failRaw(t, c.tool, c.args)
			wantContains(t, "error", msg, "UTF-8")
			v.unchanged(t, before)
		})
	}
	// A valid surrogate pair is fine.
	text, isErr := r.callRaw(t, "write_file", []byte(`{"path":"notes/emoji.md","content":"rocket \ud83d\ude80"}`))
	if isErr {
		t.Fatalf("valid surrogate pair refused: %s", text)
	}
	if got := v.read(t, "notes/emoji.md"); got != "rocket 🚀" {
		t.Errorf("surrogate pair written as %q", got)
	}
}

func TestConcurrency(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"conc/log.md": "END\n", "conc/static.md": "static\n"})
	s := startSession(t, v)
	const writers, editors, readers = 24, 12, 12
	var wg sync.WaitGroup
	call := func(name string, args map[string]any) (string, bool) {
		res, err := s.callResult(name, args)
		if err != nil {
			t.Errorf("%s %v: %v", name, args, err)
			return "", true
		}
		if res.IsError {
			t.Errorf("%s %v: %s", name, args, resultText(res))
		}
		return resultText(res), res.IsError
	}
	for i := range writers {
		wg.Go(func() {
			p := fmt.Sprintf("conc/w%02d.md", i)
			want := fmt.Sprintf("note %d\n", i)
			if _, isErr := call("write_file", map[string]any{"path": p, "content": want}); isErr {
				return
			}
			if got, isErr := call("read_file", map[string]any{"path": p}); !isErr && got != want {
				t.Errorf("read back %s = %q, want %q", p, got, want)
			}
		})
	}
	for i := range editors {
		wg.Go(func() {
			call("edit_file", map[string]any{"path": "conc/log.md", "old_text": "END", "new_text": fmt.Sprintf("item %02d\nEND", i)})
		})
	}
	for range readers {
		wg.Go(func() {
			if got, isErr := call("read_file", map[string]any{"path": "conc/static.md"}); !isErr && got != "static\n" {
				t.Errorf("concurrent read = %q", got)
			}
			call("list_directory", map[string]any{"path": "conc"})
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	log := v.read(t, "conc/log.md")
	for i := range editors {
		if !strings.Contains(log, fmt.Sprintf("item %02d\n", i)) {
			t.Errorf("edit %d lost: log.md =\n%s", i, log)
		}
	}
	if !strings.HasSuffix(log, "END\n") || strings.Count(log, "\n") != editors+1 {
		t.Errorf("log.md after concurrent edits =\n%s", log)
	}
	listing := s.ok(t, "list_directory", map[string]any{"path": "conc"})
	if n := strings.Count(listing, "[file]"); n != writers+2 {
		t.Errorf("conc/ lists %d files, want %d:\n%s", n, writers+2, listing)
	}
	noTempFiles(t, v)
}

func TestSymlinkInsideVault(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"notes/a.md": "A\n", "notes/b.md": "B\n"})
	v.symlink(t, "alias-a.md", "notes/a.md")
	v.symlink(t, "alias-b.md", "notes/b.md")
	s := startSession(t, v)
	// Either the link itself goes or the call is refused; the note it
	// points to must never be the one deleted or moved.
	if _, isErr := s.call(t, "delete_file", map[string]any{"path": "alias-a.md"}); !isErr && v.exists("alias-a.md") {
		t.Errorf("delete_file alias-a.md reported success but the link is still there")
	}
	if got := v.read(t, "notes/a.md"); got != "A\n" {
		t.Errorf("delete_file on a symlink changed its target: %q", got)
	}
	if _, isErr := s.call(t, "rename_file", map[string]any{"old_path": "alias-b.md", "new_path": "moved.md"}); !isErr && v.exists("alias-b.md") {
		t.Errorf("rename_file alias-b.md reported success but the link is still there")
	}
	if !v.exists("notes/b.md") {
		t.Errorf("rename_file on a symlink moved its target notes/b.md")
	}
}

func TestInvalidUTF8Path(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil)
	r := startRaw(t, v)
	for _, args := range [][]byte{
		[]byte("{\"path\":\"bad\xff.md\",\"content\":\"x\"}"),
		[]byte(`{"path":"bad\ud800.md","content":"x"}`),
	} {
		before := v.snapshot(t)
		msg := r.failRaw(t, "write_file", args)
		wantContains(t, "error", msg, "UTF-8")
		v.unchanged(t, before)
	}
}

func TestWriteFolderPath(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil)
	s := startSession(t, v)
	before := v.snapshot(t)
	s.fail(t, "write_file", map[string]any{"path": "newdir/", "content": "x"})
	v.unchanged(t, before)
}
