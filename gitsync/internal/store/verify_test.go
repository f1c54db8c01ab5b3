package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

func TestCheckName(t *testing.T) {
	t.Parallel()
	bad := []string{
		"", ".", "..", "a/b", "nul\x00", ".git", ".GIT", ".Git", ".git.", ".git ", ".git. . ", ".git::$INDEX_ALLOCATION",
		"git~1", "GIT~1", "GIT~1 ", ".g\u200cit", ".\u200dgit", "\ufeff.git", ".gi\u200et", ".git\u200f", ".g\u2060it",
		".\uff47\uff49\uff54", // full-width letters: NFKC folds them to ".git"
		".g\u0130t",           // a Turkish capital dotted I
		`a\.git`, `.git\hooks`, `..\x`, `x\..`,
		".\u200c.",
	}
	for _, name := range bad {
		if err := CheckName(name, filemode.Regular); err == nil || !errors.Is(err, ErrUnsafePath) {
			t.Errorf("checkName(%q) = %v, want an unsafe-path error", name, err)
		}
	}
	good := []string{"a.md", ".gitignore", ".github", ".gitkeep", "git", "gitx", ".git-notes", "...", ".obsidian", "notes (conflict 2026-01-01 1200).md", "über.md", "git~2", `a\b.md`}
	for _, name := range good {
		if err := CheckName(name, filemode.Regular); err != nil {
			t.Errorf("checkName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{".gitignore", ".gitmodules", ".GITATTRIBUTES", ".gitignore. "} {
		if err := CheckName(name, filemode.Symlink); err == nil {
			t.Errorf("checkName(%q, symlink) = nil, want an error", name)
		}
	}
	if err := checkMode(filemode.FileMode(0o100666)); err == nil {
		t.Error("checkMode accepted an unknown mode")
	}
}

// FuzzCheckName: a name checkName accepts never folds to ".git" or a
// parent folder, whatever Unicode it holds.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"a.md", ".git", ".g\u200cit", "GIT~1", ".\uff47it", "..", `a\.git`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name, filemode.Regular) != nil {
			return
		}
		if strings.ContainsAny(name, "/\x00") || name == "" {
			t.Fatalf("accepted %q", name)
		}
		for _, part := range strings.Split(name, `\`) {
			folded := strings.ToLower(trimNTFS(foldForCompare(part)))
			if folded == ".git" || folded == "git~1" || part == ".." || part == "." {
				t.Fatalf("accepted %q (folds to %q)", name, folded)
			}
		}
	})
}
