package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault/access"
)

// TestScopeFolders lists and resolves folders under scopes whose allow
// patterns have wildcards: a folder shows when it is visible or holds
// something visible at any depth; one the patterns merely could lead into
// is hidden like any other hidden path, and a hidden path is refused the
// same way whether it exists, is a file, or is a folder.
func TestScopeFolders(t *testing.T) {
	v, root := newTestVault(t, Options{})
	for _, f := range []string{"Projects/Alpha/public/x.md", "Projects/Beta/secret.md", "Projects/Gamma/sub/y.md",
		"Projects/readme.md", "Other/z.md", "Deep/a/b/public/n.md", "Deep/c/d/e.md"} {
		mkfile(t, root, f, "x\n")
	}
	mkdir(t, root, "Projects/Delta/public") // empty, but visible: shown
	mkdir(t, root, "Projects/Empty")
	// A link back up is not looked through (nor listed: its folder is
	// hidden), so it neither loops nor shows Deep/c.
	if err := os.Symlink(filepath.Join(root, "Deep"), filepath.Join(root, "Deep", "c", "loop")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		rules   access.Rules
		list    string // folder listed recursively
		want    string // its entries, or the refusal's start
		refused []string
		allowed []string
	}{
		{
			name: "one wildcard", rules: access.Rules{Allow: []string{"Projects/*/public"}}, list: "",
			want:    "Projects/ Projects/Alpha/ Projects/Alpha/public/ Projects/Alpha/public/x.md Projects/Delta/ Projects/Delta/public/",
			refused: []string{"Projects/Beta", "Projects/Gamma", "Projects/Gamma/sub", "Projects/Empty", "Projects/Zeta", "Projects/readme.md", "Projects/Beta/secret.md", "Other", "Other/z.md", "Other/none"},
			allowed: []string{"", "Projects", "Projects/Alpha", "Projects/Alpha/public", "Projects/Delta"},
		},
		{
			name: "double star", rules: access.Rules{Allow: []string{"**/public"}}, list: "Deep",
			want:    "Deep/a/ Deep/a/b/ Deep/a/b/public/ Deep/a/b/public/n.md",
			refused: []string{"Deep/c", "Deep/c/d", "Projects/Beta", "Other"},
			allowed: []string{"Deep", "Deep/a/b", "Projects/Alpha"},
		},
		{
			name: "deny", rules: access.Rules{Deny: []string{"Projects/Beta", "**/sub"}}, list: "Projects",
			want:    "Projects/Alpha/ Projects/Alpha/public/ Projects/Alpha/public/x.md Projects/Delta/ Projects/Delta/public/ Projects/Empty/ Projects/Gamma/ Projects/readme.md",
			refused: []string{"Projects/Beta", "Projects/Beta/none", "Projects/Gamma/sub"},
			allowed: []string{"Projects/Empty", "Projects/Gamma", "Other"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := access.With(context.Background(), access.MustNew("test", c.rules))
			entries, err := v.List(ctx, c.list, 10)
			if err != nil {
				t.Fatalf("List(%q): %v", c.list, err)
			}
			var got []string
			for _, e := range entries {
				if e.IsDir {
					got = append(got, e.Rel+"/")
				} else {
					got = append(got, e.Rel)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("List(%q) =\n  %s\nwant\n  %s", c.list, strings.Join(got, " "), c.want)
			}
			for _, p := range c.refused {
				want := "Access denied: " + p + " is outside the folders this session may access"
				if _, err := v.List(ctx, p, 1); !errors.Is(err, ErrDenied) || err.Error() != want {
					t.Errorf("List(%q): %v, want %q", p, err, want)
				}
				if _, err := v.ResolveFor(ctx, p); !errors.Is(err, ErrDenied) || err.Error() != want {
					t.Errorf("ResolveFor(%q): %v, want %q", p, err, want)
				}
			}
			for _, p := range c.allowed {
				if _, err := v.List(ctx, p, 1); err != nil {
					t.Errorf("List(%q): %v", p, err)
				}
				if _, err := v.ResolveFor(ctx, p); err != nil {
					t.Errorf("ResolveFor(%q): %v", p, err)
				}
			}
		})
	}
}
