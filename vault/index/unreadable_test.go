package index

import (
	"errors"
	"testing"

	"vaultmcp/vault/markdown"
)

// A note whose frontmatter YAML cannot read is counted while it is so,
// and a failed lookup by its name, id, path or link names it; fixing the
// note makes it a concept.
func TestUnreadableFrontmatter(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"Concepts/Machine Learning.md": "---\nprefLabel: Machine Learning\nnarrower: [[Naïve Bayes]], [[Régression]]\n---\n",
		"Concepts/ok.md":               "---\nprefLabel: OK\n---\n",
		"list.md":                      "---\n- a\n- b\n---\n", // not a mapping
	})
	counts := func() (int, int) {
		t.Helper()
		s, err := ix.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var cs ConceptStats
		if err := ix.Concepts(ctx, func(v *ConceptView) error { cs = v.Stats(); return nil }); err != nil {
			t.Fatal(err)
		}
		return s.UnreadableFrontmatter, cs.UnreadableFrontmatter
	}
	if a, b := counts(); a != 2 || b != 2 {
		t.Errorf("unreadable: index %d, concepts %d; want 2, 2", a, b)
	}
	tests := []struct {
		name, rel string
		line      int // of a *markdown.SyntaxError; 0: another error
	}{
		{"Machine Learning", "Concepts/Machine Learning.md", 3},
		{"machine_learning", "Concepts/Machine Learning.md", 3},
		{"Concepts/Machine Learning.md", "Concepts/Machine Learning.md", 3},
		{"[[Machine Learning|ML]]", "Concepts/Machine Learning.md", 3},
		{"list", "list.md", 0},
		{"ok", "", 0},      // a concept: nothing to explain
		{"nothing", "", 0}, // names no note
	}
	err := ix.Concepts(ctx, func(cv *ConceptView) error {
		for _, tt := range tests {
			rel, why := cv.UnreadableNamed(tt.name)
			if rel != tt.rel || (why != nil) != (tt.rel != "") {
				t.Errorf("UnreadableNamed(%q) = %q, %v; want %q", tt.name, rel, why, tt.rel)
				continue
			}
			var se *markdown.SyntaxError
			if tt.line > 0 && (!errors.As(why, &se) || se.Line != tt.line || se.Key != "narrower") {
				t.Errorf("UnreadableNamed(%q): %#v, want a syntax error on line %d, key narrower", tt.name, why, tt.line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.WriteFile(ctx, "Concepts/Machine Learning.md", []byte("---\nprefLabel: Machine Learning\nnarrower: [\"[[Naïve Bayes]]\", \"[[Régression]]\"]\n---\n")); err != nil {
		t.Fatal(err)
	}
	if a, b := counts(); a != 1 || b != 1 {
		t.Errorf("after the fix: index %d, concepts %d; want 1, 1", a, b)
	}
	if got := lookup(t, ix, "machine_learning"); len(got) != 1 {
		t.Errorf("after the fix, lookup = %v", got)
	}
	if _, err := v.DeleteFile(ctx, "list.md"); err != nil {
		t.Fatal(err)
	}
	if a, b := counts(); a != 0 || b != 0 {
		t.Errorf("after the delete: index %d, concepts %d; want 0, 0", a, b)
	}
	checkAgainstRebuild(t, v, ix)
}
