package store

import (
	"path"
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"notes/a.md", "notes/a.md", true},
		{"notes//a.md", "notes/a.md", true},
		{"./notes/./a.md", "notes/a.md", true},
		{`notes\a.md`, "notes/a.md", true},
		{"notes/sub/../a.md", "notes/a.md", true},
		{"", "", false},
		{".", "", false},
		{"..", "", false},
		{"../a.md", "", false},
		{"a/../../b", "", false},
		{"/abs.md", "", false},
		{".git", "", false},
		{"x/.GIT/HEAD", "", false},
		{"nul\x00.md", "", false},
	}
	for _, tt := range tests {
		got, err := CleanPath(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzCleanPath: whatever comes in, what comes out stays inside the vault
// and outside .git, in canonical form.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"a.md", "../x", "a/./b/../c", `a\..\..\b`, ".git/x", "/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := CleanPath(in)
		if err != nil {
			return
		}
		if got == "" || got == "." || strings.HasPrefix(got, "/") || strings.ContainsRune(got, 0) || path.Clean(got) != got {
			t.Fatalf("CleanPath(%q) = %q", in, got)
		}
		for _, part := range strings.Split(got, "/") {
			if part == ".." || strings.EqualFold(part, ".git") {
				t.Fatalf("CleanPath(%q) = %q", in, got)
			}
		}
	})
}
