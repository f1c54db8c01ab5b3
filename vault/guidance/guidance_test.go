package guidance

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/changes"
)

// newVault creates a vault holding files (rel -> content) beside a folder
// "outside" that symlinks can point at.
func newVault(t *testing.T, files map[string]string) (*vault.Vault, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "vault")
	for rel, content := range files {
		write(t, root, rel, content)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, base, "outside/CLAUDE.md", "secret\n")
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v, root
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func dirs(files []File) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Dir+"="+strings.TrimSpace(f.Content))
	}
	return strings.Join(out, " ")
}

func TestAlong(t *testing.T) {
	v, root := newVault(t, map[string]string{
		"CLAUDE.md":                      "root rules\n",
		"projects/CLAUDE.md":             "# Project conventions\n",
		"projects/webapp/CLAUDE.md":      "# Webapp specifics\n",
		"projects/webapp/src/app.md":     "code\n",
		"projects/blank/CLAUDE.md":       " \n",
		"projects/dir/CLAUDE.md/x.md":    "a folder named CLAUDE.md\n",
		"Ünïcode/CLAUDE.md":              "unicode rules\n",
		".claude/CLAUDE.md":              "hidden\n",
		"notes/plain.md":                 "no rules here\n",
		"projects/webapp/src/CLAUDE.txt": "not the file\n",
	})
	if err := os.Symlink(filepath.Join(filepath.Dir(root), "outside", "CLAUDE.md"), filepath.Join(root, "notes", "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	f := New(v, Options{})
	tests := []struct {
		dir  string
		want string // "" = none
	}{
		{"projects/webapp", "projects=# Project conventions projects/webapp=# Webapp specifics"},
		{"projects/webapp/", "projects=# Project conventions projects/webapp=# Webapp specifics"},
		{"projects/webapp/src", "projects=# Project conventions projects/webapp=# Webapp specifics"},
		{"projects/webapp/src/app.md", "projects=# Project conventions projects/webapp=# Webapp specifics"}, // a file: its folder
		{"projects", "projects=# Project conventions"},
		{"projects/not-yet/deeper", "projects=# Project conventions"},
		{"projects/blank", "projects=# Project conventions"},
		{"projects/dir", "projects=# Project conventions"},
		{"", ""},
		{"/", ""},
		{".", ""},
		{"notes", ""}, // the symlink leads out of the vault
		{"nowhere", ""},
		{"Ünïcode", "Ünïcode=unicode rules"},
	}
	for _, tt := range tests {
		got, err := f.Along(context.Background(), tt.dir)
		if err != nil {
			t.Errorf("Along(%q): %v", tt.dir, err)
			continue
		}
		if dirs(got) != tt.want {
			t.Errorf("Along(%q) = %q, want %q", tt.dir, dirs(got), tt.want)
		}
	}
	for _, bad := range []struct {
		dir  string
		kind error
	}{
		{"../outside", vault.ErrOutside},
		{".claude", vault.ErrHidden},
		{"projects/\x00", vault.ErrInvalidPath},
	} {
		if _, err := f.Along(context.Background(), bad.dir); !errors.Is(err, bad.kind) {
			t.Errorf("Along(%q) = %v, want %v", bad.dir, err, bad.kind)
		}
	}
	if got := f.Root(context.Background()); got != "root rules\n" {
		t.Errorf("Root() = %q", got)
	}
}

func TestRoot(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		link  bool
		want  string
	}{
		{"none", nil, false, ""},
		{"blank", map[string]string{"CLAUDE.md": "\n \t\n"}, false, ""},
		{"text", map[string]string{"CLAUDE.md": "# Rules\n"}, false, "# Rules\n"},
		{"folder named CLAUDE.md", map[string]string{"CLAUDE.md/x.md": "x"}, false, ""},
		{"symlink out", nil, true, ""},
	}
	for _, tt := range tests {
		v, root := newVault(t, tt.files)
		if tt.link {
			if err := os.Symlink(filepath.Join(filepath.Dir(root), "outside", "CLAUDE.md"), filepath.Join(root, "CLAUDE.md")); err != nil {
				t.Fatal(err)
			}
		}
		if got := New(v, Options{}).Root(context.Background()); got != tt.want {
			t.Errorf("%s: Root() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTruncated(t *testing.T) {
	v, _ := newVault(t, map[string]string{"CLAUDE.md": strings.Repeat("é", 100)})
	got := New(v, Options{MaxBytes: 11}).Root(context.Background())
	if got != strings.Repeat("é", 5)+truncated {
		t.Errorf("Root() = %q", got)
	}
}

// With a feed, files are read once and read again only after a change is
// announced for them; without one, every call reads the disk.
func TestCache(t *testing.T) {
	v, root := newVault(t, map[string]string{
		"CLAUDE.md":           "root v1\n",
		"a/CLAUDE.md":         "a v1\n",
		"a/b/CLAUDE.md":       "b v1\n",
		"other/CLAUDE.md":     "other v1\n",
		"a/b/unrelated.md":    "x\n",
		"moved/src/CLAUDE.md": "src v1\n",
	})
	feed := new(changes.Feed)
	f := New(v, Options{Changes: feed})
	uncached := New(v, Options{})
	along := func(dir string) string {
		t.Helper()
		got, err := f.Along(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		return dirs(got)
	}
	if got := along("a/b"); got != "a=a v1 a/b=b v1" {
		t.Fatalf("Along = %q", got)
	}
	along("other")
	f.Root(context.Background())

	// Changed on disk without a notice: the cache still answers.
	write(t, root, "a/CLAUDE.md", "a v2\n")
	write(t, root, "a/b/CLAUDE.md", "b v2\n")
	write(t, root, "other/CLAUDE.md", "other v2\n")
	write(t, root, "CLAUDE.md", "root v2\n")
	if got := along("a/b"); got != "a=a v1 a/b=b v1" {
		t.Errorf("cache not used: %q", got)
	}
	if got, _ := uncached.Along(context.Background(), "a/b"); dirs(got) != "a=a v2 a/b=b v2" {
		t.Errorf("without a feed: %q", dirs(got))
	}

	steps := []struct {
		paths []string
		dir   string
		want  string
	}{
		{[]string{"a/b/unrelated.md"}, "a/b", "a=a v1 a/b=b v1"}, // nothing of ours
		{[]string{"a/b/CLAUDE.md"}, "a/b", "a=a v1 a/b=b v2"},    // just that folder
		{[]string{"a"}, "a/b", "a=a v2 a/b=b v2"},                // an ancestor folder
		{[]string{"other/claude.md"}, "other", "other=other v2"}, // another spelling of the name
	}
	for _, s := range steps {
		feed.PublishPaths(s.paths)
		if got := along(s.dir); got != s.want {
			t.Errorf("after %v: Along(%q) = %q, want %q", s.paths, s.dir, got, s.want)
		}
	}
	if got := f.Root(context.Background()); got != "root v1\n" {
		t.Errorf("root re-read without a notice: %q", got)
	}
	feed.PublishPaths([]string{"CLAUDE.md"})
	if got := f.Root(context.Background()); got != "root v2\n" {
		t.Errorf("root not re-read: %q", got)
	}

	// A folder that appears later (here by a rename on disk) is found
	// once it is announced, though it was asked for while missing.
	if got := along("renamed/src"); got != "" {
		t.Fatalf("Along(renamed/src) = %q", got)
	}
	if err := os.Rename(filepath.Join(root, "moved"), filepath.Join(root, "renamed")); err != nil {
		t.Fatal(err)
	}
	feed.PublishPaths([]string{"moved", "renamed"})
	if got := along("renamed/src"); got != "renamed/src=src v1" {
		t.Errorf("after the rename: %q", got)
	}
	// The whole vault announced: everything is read again.
	write(t, root, "other/CLAUDE.md", "other v3\n")
	feed.PublishPaths([]string{""})
	if got := along("other"); got != "other=other v3" {
		t.Errorf("after a root notice: %q", got)
	}
}

func TestFolderFS(t *testing.T) {
	v, root := newVault(t, map[string]string{
		".vaultmcp/guides/conventions.md":       "# Ours\n",
		".vaultmcp/guides/create-note/daily.md": "# Daily\n",
		"big/guide.md":                          strings.Repeat("x", 100),
	})
	if err := os.Symlink(filepath.Join(filepath.Dir(root), "outside", "CLAUDE.md"), filepath.Join(root, ".vaultmcp", "guides", "search-strategy.md")); err != nil {
		t.Fatal(err)
	}
	f := New(v, Options{MaxBytes: 10})
	fsys := f.Folder(".vaultmcp/guides")
	if data, err := fs.ReadFile(fsys, "conventions.md"); err != nil || string(data) != "# Ours\n" {
		t.Errorf("conventions.md = %q, %v", data, err)
	}
	if data, err := fs.ReadFile(fsys, "create-note/daily.md"); err != nil || string(data) != "# Daily\n" {
		t.Errorf("create-note/daily.md = %q, %v", data, err)
	}
	if _, err := fs.ReadFile(fsys, "missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := fs.ReadFile(fsys, "search-strategy.md"); err == nil || !errors.Is(err, vault.ErrOutside) {
		t.Errorf("symlink out of the vault: %v", err)
	}
	for _, bad := range []string{"../CLAUDE.md", "/etc/passwd", "a//b"} {
		if _, err := fs.ReadFile(fsys, bad); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("%q: %v, want fs.ErrInvalid", bad, err)
		}
	}
	if data, err := fs.ReadFile(f.Folder("big"), "guide.md"); err != nil || len(data) != 10 {
		t.Errorf("capped read: %d bytes, %v", len(data), err)
	}
	file, err := fsys.Open("conventions.md")
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := file.Stat()
	if fi.Name() != "conventions.md" || fi.Size() != 7 || fi.IsDir() || fi.Mode().IsDir() || fi.ModTime().IsZero() {
		t.Errorf("stat: %v %v %v", fi.Name(), fi.Size(), fi.ModTime())
	}
	file.Close()
}
