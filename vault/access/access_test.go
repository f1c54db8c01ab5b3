package access

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	tests := []struct {
		name    string
		rules   Rules
		visible []string
		hidden  []string
		nav     []string // navigable folders that are not themselves visible
	}{
		{
			name:    "allow a folder",
			rules:   Rules{Allow: []string{"Journal/"}},
			visible: []string{"", "Journal", "Journal/2024-01-01.md", "journal/deep/x.md"},
			hidden:  []string{"Projects/a.md", "Journalism/a.md", "README.md", "Projects"},
		},
		{
			name:    "allow spelled with /**",
			rules:   Rules{Allow: []string{"Journal/**"}},
			visible: []string{"Journal/a.md", "Journal"},
			hidden:  []string{"JournalX/a.md"},
		},
		{
			name:    "deny wins over allow",
			rules:   Rules{Allow: []string{"Work"}, Deny: []string{"Work/HR"}},
			visible: []string{"Work/plan.md", "Work/HRM/x.md"},
			hidden:  []string{"Work/HR", "Work/HR/salaries.md", "work/hr/Salaries.md", "Home/x.md"},
		},
		{
			name:    "deny only",
			rules:   Rules{Deny: []string{"Private", "**/secret*.md"}},
			visible: []string{"a.md", "Notes/public.md", "Privateer/x.md"},
			hidden:  []string{"Private/x.md", "Notes/secret-plan.md", "secret.md", "PRIVATE/x.md"},
		},
		{
			name:    "nested allow keeps parents navigable",
			rules:   Rules{Allow: []string{"Projects/*/public"}},
			visible: []string{"Projects/a/public/x.md", "Projects/b/public"},
			hidden:  []string{"Projects/a/private/x.md", "Projects/a/x.md", "Other/a/public/x.md"},
			nav:     []string{"Projects", "Projects/a"},
		},
		{
			name:    "unicode forms fold",
			rules:   Rules{Deny: []string{"Caf\u00e9"}},
			visible: []string{"Cafe/x.md"},
			hidden:  []string{"Cafe\u0301/x.md", "CAF\u00c9/x.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustNew("test", tt.rules)
			for _, p := range tt.visible {
				if !s.Visible(p) {
					t.Errorf("Visible(%q) = false, want true", p)
				}
				if !s.Navigable(p) {
					t.Errorf("Navigable(%q) = false for a visible path", p)
				}
			}
			for _, p := range tt.hidden {
				if s.Visible(p) {
					t.Errorf("Visible(%q) = true, want false", p)
				}
			}
			for _, p := range tt.nav {
				if s.Visible(p) || !s.Navigable(p) {
					t.Errorf("%q: Visible=%v Navigable=%v, want false, true", p, s.Visible(p), s.Navigable(p))
				}
			}
		})
	}
}

func TestNarrow(t *testing.T) {
	server := MustNew("the server", Rules{Deny: []string{"Private"}})
	token := MustNew(`token "j"`, Rules{ReadOnly: true, Allow: []string{"Journal", "Private"}})
	s := server.Narrow(token)
	for p, want := range map[string]bool{"Journal/a.md": true, "Private/a.md": false, "Home.md": false} {
		if got := s.Visible(p); got != want {
			t.Errorf("Visible(%q) = %v, want %v", p, got, want)
		}
	}
	if !s.ReadOnly() || server.ReadOnly() {
		t.Error("read-only did not carry over from the narrower scope alone")
	}
	err := s.CheckWrite("Journal/a.md", "Journal/a.md")
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), `token "j" is read-only`) {
		t.Errorf("CheckWrite = %v", err)
	}
	var nilScope *Scope
	if nilScope.Narrow(token) != token || token.Narrow(nil) != token {
		t.Error("narrowing with nil changed the scope")
	}
	if nilScope.CheckWrite("x", "x") != nil || !nilScope.Visible("x") || !nilScope.Unrestricted() {
		t.Error("the nil scope restricts")
	}
}

func TestNewRejects(t *testing.T) {
	for _, g := range []string{"", "/", "**", "a/../b", "a/{b,c/d}", "[", "./a"} {
		if _, err := New("x", Rules{Allow: []string{g}}); err == nil {
			t.Errorf("New accepted the allow pattern %q", g)
		}
	}
	if s, err := New("x", Rules{}); err != nil || s != nil {
		t.Errorf("empty rules: %v, %v; want nil, nil", s, err)
	}
}

func TestMessages(t *testing.T) {
	s := MustNew("x", Rules{Allow: []string{"Journal"}})
	if err := s.CheckRead("Private/a.md", "Private/a.md"); err == nil || !strings.Contains(err.Error(), "Private/a.md is outside") {
		t.Errorf("CheckRead = %v", err)
	}
	if err := s.CheckWrite("", "Private/a.md"); err == nil || strings.Contains(err.Error(), "Private") {
		t.Errorf("CheckWrite of an unnamed path names it: %v", err)
	}
	if err := s.CheckFolder("/", ""); err != nil {
		t.Errorf("the root is not navigable: %v", err)
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if From(ctx) != nil {
		t.Fatal("empty context has a scope")
	}
	s := MustNew("x", Rules{ReadOnly: true})
	if From(With(ctx, s)) != s {
		t.Fatal("scope lost in the context")
	}
}

// FuzzVisible checks the invariant listings rely on: whatever is visible
// has navigable parents, so it can be reached by listing.
func FuzzVisible(f *testing.F) {
	f.Add("Journal", "Journal/Private", "Journal/a/b.md")
	f.Add("Projects/*/public", "", "Projects/x/public/y.md")
	f.Add("**/notes", "**/secret", "a/notes/secret/x.md")
	f.Fuzz(func(t *testing.T, allow, deny, rel string) {
		r := Rules{}
		if allow != "" {
			r.Allow = []string{allow}
		}
		if deny != "" {
			r.Deny = []string{deny}
		}
		s, err := New("fuzz", r)
		if err != nil || s == nil {
			return
		}
		if !s.Visible(rel) {
			return
		}
		for dir := rel; ; {
			i := strings.LastIndexByte(dir, '/')
			if i < 0 {
				break
			}
			dir = dir[:i]
			if !s.Navigable(dir) {
				t.Fatalf("allow %q deny %q: %q visible but its folder %q is not navigable", allow, deny, rel, dir)
			}
		}
	})
}

// linkMap is Links from a map.
type linkMap map[string]string

func (m linkMap) LinkTarget(rel string) (string, bool) {
	t, ok := m[rel]
	return t, ok
}

// A scope bound through links judges a link by both its ends; bound to
// none, or hiding nothing, it judges paths as before.
func TestThrough(t *testing.T) {
	links := linkMap{
		"Public/alias.md":  "Private/secret.md",
		"Public/inside.md": "Public/n.md",
		"Private/back.md":  "Public/n.md",
		"Public/up.md":     "/Private/secret.md/",
	}
	tests := []struct {
		name    string
		scope   *Scope
		visible []string
		hidden  []string
	}{
		{
			name:    "allow",
			scope:   MustNew("t", Rules{Allow: []string{"Public"}}).Through(links),
			visible: []string{"Public/n.md", "Public/inside.md", "Public", ""},
			hidden:  []string{"Public/alias.md", "Public/up.md", "/Public/alias.md/", "Private/back.md", "Private/secret.md"},
		},
		{
			name:    "deny",
			scope:   MustNew("t", Rules{Deny: []string{"Private"}}).Through(links),
			visible: []string{"Public/n.md", "Public/inside.md", "other.md"},
			hidden:  []string{"Public/alias.md", "Private/back.md"},
		},
		{
			name:    "narrowed after binding",
			scope:   MustNew("t", Rules{Deny: []string{"Nothing"}}).Through(links).Narrow(MustNew("u", Rules{Allow: []string{"Public"}})),
			visible: []string{"Public/n.md", "Public/inside.md"},
			hidden:  []string{"Public/alias.md"},
		},
		{
			name:    "bound to nothing",
			scope:   MustNew("t", Rules{Allow: []string{"Public"}}).Through(nil),
			visible: []string{"Public/alias.md"},
			hidden:  []string{"Private/back.md"},
		},
		{
			name:    "unrestricted",
			scope:   (*Scope)(nil).Through(links),
			visible: []string{"Public/alias.md", "Private/back.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range tt.visible {
				if !tt.scope.Visible(p) {
					t.Errorf("Visible(%q) = false, want true", p)
				}
			}
			for _, p := range tt.hidden {
				if tt.scope.Visible(p) {
					t.Errorf("Visible(%q) = true, want false", p)
				}
				if err := tt.scope.CheckRead(p, p); err == nil {
					t.Errorf("CheckRead(%q) passed", p)
				}
			}
		})
	}
	if s := (*Scope)(nil).Through(links); s != nil {
		t.Errorf("unrestricted scope bound through links = %+v, want nil", s)
	}
	if s := MustNew("t", Rules{ReadOnly: true}); s.Through(links) != s {
		t.Error("a scope that hides nothing was copied to bind links it never consults")
	}
}
