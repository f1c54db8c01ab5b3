package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// boundaryVault builds a vault with every trap Resolve must handle, next
// to a folder outside it, and returns the vault, its root and the outside
// folder.
func boundaryVault(t testing.TB) (*Vault, string, string) {
	t.Helper()
	base := t.TempDir()
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "vault")
	outside := filepath.Join(base, "outside")
	mkfile(t, outside, "secret.md", "secret")
	mkfile(t, root, "notes/a.md", "a")
	mkfile(t, root, "notes/.claude/x", "agent settings")
	mkfile(t, root, ".git/config", "[core]")
	mkfile(t, root, ".obsidian/app.json", "{}")
	mkfile(t, root, "file.md", "f")
	symlink(t, root, "out-file.md", filepath.Join(outside, "secret.md"))
	symlink(t, root, "out-rel.md", "../outside/secret.md")
	symlink(t, root, "out-dir", outside)
	symlink(t, root, "notes/out-missing.md", filepath.Join(outside, "missing.md"))
	symlink(t, root, "in-link.md", "notes/a.md")
	symlink(t, root, "in-dir", "notes")
	symlink(t, root, "broken.md", "nowhere.md")
	symlink(t, root, "loop.md", "loop.md")
	symlink(t, root, "gitlink", ".git")
	symlink(t, root, "notes/gitconfig", "../.git/config")
	v, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v, root, outside
}

func TestResolve(t *testing.T) {
	v, root, outside := boundaryVault(t)
	tests := []struct {
		name  string
		given string
		rel   string // wanted Rel when err is nil
		err   error  // wanted kind, nil for success
	}{
		{"parent escape", "../x.md", "", ErrOutside},
		{"parent only", "..", "", ErrOutside},
		{"absolute outside", "/etc/passwd", "", ErrOutside},
		{"absolute inside", filepath.Join(root, "notes", "a.md"), "notes/a.md", nil},
		{"absolute root", root, "", nil},
		{"absolute root slash", root + "/", "", nil},
		{"absolute prefix sibling", root + "-other/x.md", "", ErrOutside},
		{"absolute hidden inside", filepath.Join(root, ".git", "config"), "", ErrHidden},
		{"climb out of a subfolder", "a/../../x", "", ErrOutside},
		{"dotdot that stays inside", "a/../b.md", "b.md", nil},
		{"dot segments", "./notes/./a.md", "notes/a.md", nil},
		{"doubled slashes", "notes//a.md", "notes/a.md", nil},
		{"git config", ".git/config", "", ErrHidden},
		{"git folder", ".git", "", ErrHidden},
		{"git upper case", ".GIT/config", "", ErrHidden},
		{"claude nested", "notes/.claude/x", "", ErrHidden},
		{"claude via dotdot", "x/../.claude/settings.json", "", ErrHidden},
		{"obsidian may be named", ".obsidian/app.json", ".obsidian/app.json", nil},
		{"NUL byte", "notes/a\x00.md", "", ErrInvalidPath},
		{"invalid UTF-8", "notes/\xff\xfe.md", "", ErrInvalidPath},
		{"empty is root", "", "", nil},
		{"dot is root", ".", "", nil},
		{"slash is root", "/", "", nil},
		{"existing file", "notes/a.md", "notes/a.md", nil},
		{"new file", "notes/new/deep.md", "notes/new/deep.md", nil},
		{"below a file", "file.md/x.md", "file.md/x.md", nil},
		{"symlink to file outside", "out-file.md", "", ErrOutside},
		{"relative symlink outside", "out-rel.md", "", ErrOutside},
		{"symlinked folder outside", "out-dir", "", ErrOutside},
		{"existing file below symlinked folder", "out-dir/secret.md", "", ErrOutside},
		{"new file below symlinked folder", "out-dir/new.md", "", ErrOutside},
		{"new deep file below symlinked folder", "out-dir/a/b/new.md", "", ErrOutside},
		{"dangling symlink pointing outside", "notes/out-missing.md", "", ErrInvalidPath},
		{"symlink to file inside", "in-link.md", "notes/a.md", nil},
		{"symlinked folder inside", "in-dir/a.md", "notes/a.md", nil},
		{"new file below symlinked folder inside", "in-dir/new.md", "notes/new.md", nil},
		{"broken symlink", "broken.md", "", ErrInvalidPath},
		{"below broken symlink", "broken.md/x.md", "", ErrInvalidPath},
		{"symlink loop", "loop.md", "", ErrInvalidPath},
		{"symlink to .git", "gitlink", "", ErrHidden},
		{"through symlink to .git", "gitlink/config", "", ErrHidden},
		{"new file through symlink to .git", "gitlink/hooks/pre-commit", "", ErrHidden},
		{"symlink to file in .git", "notes/gitconfig", "", ErrHidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := v.Resolve(tt.given)
			if tt.err != nil {
				checkClientError(t, err, tt.err, tt.given, root, outside)
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.given, err)
			}
			if p.Rel != tt.rel {
				t.Errorf("Resolve(%q).Rel = %q, want %q", tt.given, p.Rel, tt.rel)
			}
			want := root
			if tt.rel != "" {
				want = filepath.Join(root, filepath.FromSlash(tt.rel))
			}
			if p.Abs != want {
				t.Errorf("Resolve(%q).Abs = %q, want %q", tt.given, p.Abs, want)
			}
			if p.Given != tt.given {
				t.Errorf("Resolve(%q).Given = %q", tt.given, p.Given)
			}
			if p.IsRoot() != (tt.rel == "") {
				t.Errorf("Resolve(%q).IsRoot() = %v", tt.given, p.IsRoot())
			}
		})
	}
}

// A vault opened through a symlink accepts absolute paths spelled with
// either the configured or the real root, and still refuses the rest.
func TestResolveSymlinkedRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real")
	mkfile(t, real, "notes/a.md", "a")
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	v, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Root() != real {
		t.Errorf("Root() = %q, want the real path %q", v.Root(), real)
	}
	for _, given := range []string{link + "/notes/a.md", real + "/notes/a.md", "notes/a.md"} {
		p, err := v.Resolve(given)
		if err != nil {
			t.Errorf("Resolve(%q): %v", given, err)
			continue
		}
		if p.Rel != "notes/a.md" || p.Abs != filepath.Join(real, "notes", "a.md") {
			t.Errorf("Resolve(%q) = %+v", given, p)
		}
	}
	_, err = v.Resolve(base + "/elsewhere.md")
	checkClientError(t, err, ErrOutside, base+"/elsewhere.md", real, link)
}

func TestOpenMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	for _, given := range []string{"", dir} {
		_, err := Open(given, Options{})
		if err == nil {
			t.Fatalf("Open(%q): no error", given)
		}
		if !strings.Contains(err.Error(), "Vault not found") && !strings.Contains(err.Error(), "not set") {
			t.Errorf("Open(%q) = %q", given, err)
		}
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f, Options{}); err == nil {
		t.Errorf("Open(file): no error")
	}
}

func TestResolveUnicodeForms(t *testing.T) {
	v, root := newTestVault(t, Options{})
	nfcFile := norm.NFC.String("Café.md")
	nfdFile := norm.NFD.String("Résumé.md")
	nfdDir := norm.NFD.String("Réseau")
	if nfcFile == norm.NFD.String(nfcFile) || nfdDir == norm.NFC.String(nfdDir) {
		t.Fatal("test names must differ between NFC and NFD")
	}
	mkfile(t, root, nfcFile, "nfc")
	mkfile(t, root, nfdFile, "nfd")
	mkfile(t, root, nfdDir+"/note.md", "in nfd folder")

	tests := []struct {
		given, rel string
	}{
		{norm.NFD.String(nfcFile), nfcFile},                                              // NFD finds NFC
		{norm.NFC.String(nfdFile), nfdFile},                                              // NFC finds NFD
		{nfdFile, nfdFile},                                                               // exact
		{norm.NFC.String(nfdDir) + "/note.md", nfdDir + "/note.md"},                      // folder
		{norm.NFC.String(nfdDir) + "/new.md", nfdDir + "/new.md"},                        // new file in NFD folder
		{norm.NFD.String("Neu/Übung.md"), norm.NFC.String("Neu/Übung.md")},               // new names are stored NFC
		{norm.NFC.String(nfdDir) + "/" + norm.NFD.String("é.md"), nfdDir + "/" + "é.md"}, // existing folder, new NFC leaf
	}
	for _, tt := range tests {
		p, err := v.Resolve(tt.given)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.given, err)
			continue
		}
		if p.Rel != tt.rel {
			t.Errorf("Resolve(%q).Rel = %q, want %q", tt.given, p.Rel, tt.rel)
		}
	}
	// The file found is the one on disk.
	f, err := v.ReadFile(context.Background(), norm.NFC.String(nfdFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != "nfd" {
		t.Errorf("read %q, want nfd", f.Data)
	}
	// Writing with the other form replaces the file instead of adding a
	// second one that looks the same.
	if _, err := v.WriteFile(t.Context(), norm.NFD.String(nfcFile), []byte("changed")); err != nil {
		t.Fatal(err)
	}
	v.dropping.Wait() // the old file's backup is removed in the background
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("vault root holds %d entries after the write, want 3", len(entries))
	}
	if got := readRel(t, root, nfcFile); got != "changed" {
		t.Errorf("%s = %q", nfcFile, got)
	}
}

func TestResolveConfiguredHidden(t *testing.T) {
	private := norm.NFC.String("Privé")
	v, root := newTestVault(t, Options{Hidden: []string{"private", private}, Skip: []string{}})
	mkfile(t, root, ".claude/settings.json", "{}")
	mkfile(t, root, ".git/config", "[core]")
	mkfile(t, root, norm.NFD.String(private)+"/diary.md", "dear diary")

	for _, given := range []string{
		"private/x.md", "Private/x.md", "notes/PRIVATE",
		private + "/diary.md", norm.NFD.String(private) + "/diary.md",
		private + "/new.md", norm.NFD.String(private) + "/new.md",
	} {
		_, err := v.Resolve(given)
		checkClientError(t, err, ErrHidden, given, root)
	}
	// The configured set replaces the defaults, except .git: the
	// repository is never the agent's to touch (hooks would run).
	if _, err := v.Resolve(".claude/settings.json"); err != nil {
		t.Errorf("Resolve(.claude/settings.json) with a custom hidden set: %v", err)
	}
	_, err := v.Resolve(".git/config")
	checkClientError(t, err, ErrHidden, ".git/config", root)
	if !v.Hidden("PRIVATE") || !v.Hidden(".git") || v.Hidden(".claude") {
		t.Errorf("Hidden() does not follow the configured set plus .git")
	}
	if !v.Hidden(norm.NFD.String(private)) {
		t.Errorf("Hidden(%q in NFD) = false", private)
	}
}

// Permission problems are reported without the absolute path.
func TestResolvePermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "locked/x.md", "x")
	if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	_, err := v.ReadFile(context.Background(), "locked/x.md", 0)
	checkClientError(t, err, ErrPermission, "locked/x.md", root)
}
