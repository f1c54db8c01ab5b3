package vault

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault/access"
)

// linkVault builds a vault with a Public and a Private folder and
// symbolic links between them and into the places scans leave out, next
// to a folder outside it.
func linkVault(t testing.TB) (*Vault, string) {
	t.Helper()
	v, root := newTestVault(t, Options{Hidden: []string{".claude", "Vendor"}})
	mkfile(t, root, "Public/n.md", "public #pub\n")
	mkfile(t, root, "Private/secret.md", "SECRET #secret\n")
	mkfile(t, root, "Private/sub/deep.md", "deep secret\n")
	mkfile(t, root, ".git/config", "[remote \"origin\"]\n\turl = https://user:token@example.com/v.git\n")
	mkfile(t, root, ".claude/settings.json", "{}")
	mkfile(t, root, ".obsidian/workspace.json", "{}")
	mkfile(t, root, "Vendor/x.md", "configured hidden\n")
	mkfile(t, root, "Public/.env", "KEY=1\n")
	mkfile(t, filepath.Dir(root), "outside.md", "outside\n")
	symlink(t, root, "Public/alias.md", "../Private/secret.md")
	symlink(t, root, "Public/inside.md", "n.md")
	symlink(t, root, "Public/private-dir", "../Private")
	symlink(t, root, "Public/public-dir", ".")
	symlink(t, root, "Public/git.md", "../.git/config")
	symlink(t, root, "Public/gitdir", "../.git")
	symlink(t, root, "Public/claude.md", "../.claude/settings.json")
	symlink(t, root, "Public/obsidian.md", "../.obsidian/workspace.json")
	symlink(t, root, "Public/vendor.md", "../Vendor/x.md")
	symlink(t, root, "Public/env.md", ".env")
	symlink(t, root, "Public/out.md", "../../outside.md")
	symlink(t, root, "Public/broken.md", "nowhere.md")
	symlink(t, root, "Public/loop.md", "loop.md")
	symlink(t, root, "Public/root", "..")
	symlink(t, root, "Public/chain.md", "alias.md")
	symlink(t, root, "Public/via-dir.md", "private-dir/secret.md")
	symlink(t, root, "Private/back.md", "../Public/n.md")
	return v, root
}

// FollowLink resolves a link once to its target's vault-relative path,
// and leaves out every link a scan must not follow: out of the vault,
// nowhere, and into anything scans skip (hidden folders, configured or
// not, .obsidian, dot-folders and dotfiles).
func TestFollowLink(t *testing.T) {
	v, root := linkVault(t)
	mkfifo(t, root, "Private/fifo")
	symlink(t, root, "Public/fifo.md", "../Private/fifo")
	tests := []struct {
		link   string
		target string // "" when the link is left out
		dir    bool
	}{
		{"Public/alias.md", "Private/secret.md", false},
		{"Public/inside.md", "Public/n.md", false},
		{"Public/chain.md", "Private/secret.md", false},
		{"Public/via-dir.md", "Private/secret.md", false},
		{"Private/back.md", "Public/n.md", false},
		{"Public/private-dir", "Private", true},
		{"Public/public-dir", "Public", true},
		{"Public/git.md", "", false},
		{"Public/gitdir", "", false},
		{"Public/claude.md", "", false},
		{"Public/obsidian.md", "", false},
		{"Public/vendor.md", "", false},
		{"Public/env.md", "", false},
		{"Public/out.md", "", false},
		{"Public/broken.md", "", false},
		{"Public/loop.md", "", false},
		{"Public/root", "", false},
		{"Public/fifo.md", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.link, func(t *testing.T) {
			p, fi, ok := v.FollowLink(tt.link)
			if tt.target == "" {
				if ok {
					t.Fatalf("FollowLink(%q) = %q, want it left out", tt.link, p.Rel)
				}
				return
			}
			if !ok {
				t.Fatalf("FollowLink(%q) left it out, want %q", tt.link, tt.target)
			}
			want := Path{Given: tt.link, Rel: tt.target, Abs: filepath.Join(root, filepath.FromSlash(tt.target)), Via: tt.link}
			if p != want {
				t.Errorf("FollowLink(%q) = %+v, want %+v", tt.link, p, want)
			}
			if fi.IsDir() != tt.dir {
				t.Errorf("FollowLink(%q): IsDir = %v, want %v", tt.link, fi.IsDir(), tt.dir)
			}
		})
	}
}

// A client path with a symbolic link on its way passes a scope only when
// the scope allows both where the path is written and where it leads: a
// link in an allowed folder does not show a hidden note, a link in a
// hidden folder does not show itself, and a listing leaves out a link
// whose target the scope hides. Reads, writes, deletes and listings all
// answer as for any hidden path.
func TestScopeSymlinkEnds(t *testing.T) {
	v, _ := linkVault(t)
	ctx := access.With(context.Background(), access.MustNew("test", access.Rules{Allow: []string{"Public"}}))
	denied := []string{
		"Public/alias.md",    // leads into Private
		"Public/chain.md",    // through another link
		"Public/via-dir.md",  // through a linked folder
		"Public/private-dir", // a folder link into Private
		"Public/private-dir/secret.md",
		"Private/back.md", // a hidden link to a visible note
	}
	for _, p := range denied {
		want := "Access denied: " + p + " is outside the folders this session may access"
		if _, err := v.ReadFile(ctx, p, 0); !errors.Is(err, ErrDenied) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadFile(%q): %v, want %q", p, err, want)
		}
		if _, _, err := v.Stat(ctx, p); !errors.Is(err, ErrDenied) {
			t.Errorf("Stat(%q): %v, want denied", p, err)
		}
		if _, err := v.ResolveFor(ctx, p); !errors.Is(err, ErrDenied) {
			t.Errorf("ResolveFor(%q): %v, want denied", p, err)
		}
		if _, err := v.List(ctx, p, 1); !errors.Is(err, ErrDenied) {
			t.Errorf("List(%q): %v, want denied", p, err)
		}
		if _, err := v.WriteFile(ctx, p, []byte("overwritten")); !errors.Is(err, ErrDenied) {
			t.Errorf("WriteFile(%q): %v, want denied", p, err)
		}
	}
	for _, p := range []string{"Public/alias.md", "Private/back.md"} {
		if _, err := v.DeleteFile(ctx, p); !errors.Is(err, ErrDenied) {
			t.Errorf("DeleteFile(%q) of the link itself: %v, want denied", p, err)
		}
	}
	for _, p := range []string{"Public/inside.md", "Public/public-dir/n.md"} {
		if f, err := v.ReadFile(ctx, p, 0); err != nil || string(f.Data) != "public #pub\n" {
			t.Errorf("ReadFile(%q) = %q, %v; want the public note", p, f.Data, err)
		}
	}

	entries, err := v.List(ctx, "Public", 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name)
	}
	// The folder link to Public itself lists; nothing leading into
	// Private, .git, .claude, .obsidian, a configured hidden folder, a
	// dotfile or out of the vault does.
	if want := "inside.md n.md public-dir"; strings.Join(got, " ") != want {
		t.Errorf("List(Public) = %q, want %q", strings.Join(got, " "), want)
	}
	// Unscoped, only the links a scan may follow list.
	entries, err = v.List(context.Background(), "Public", 1)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, e := range entries {
		got = append(got, e.Name)
	}
	if want := "alias.md chain.md inside.md n.md private-dir public-dir via-dir.md"; strings.Join(got, " ") != want {
		t.Errorf("unscoped List(Public) = %q, want %q", strings.Join(got, " "), want)
	}
}
