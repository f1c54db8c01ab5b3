package index

import (
	"slices"
	"testing"
)

func TestLinkers(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"Hub.md":         "# Hub\n",
		"Archive/Hub.md": "# Old hub\n",
		"a.md":           "---\nup: \"[[Hub]]\"\n---\n[[Other]] then [[Hub|the hub]]\n\n[[Hub#Top]] [[Hub]]\n",
		"b.md":           "[[Archive/Hub]]\n",
		"c.md":           "[[hub]]\n[[Missing Note]]\n",
		"d.md":           "[[Missing Note|later]]\n",
	})
	total, page, err := ix.Linkers(ctx, "Hub.md", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []LinkingNote{
		{Source: "a.md", Links: []string{"Hub", "Hub|the hub", "Hub#Top"}, Lines: []int{2, 4, 6}},
		{Source: "c.md", Links: []string{"hub"}, Lines: []int{1}},
	}
	if total != 2 || !equalNotes(page, want) {
		t.Errorf("Linkers = %d %+v, want 2 %+v", total, page, want)
	}
	// Pages: total stays, windows move, past the end is empty.
	for _, tt := range []struct {
		offset, limit int
		want          []string
	}{{0, 1, []string{"a.md"}}, {1, 1, []string{"c.md"}}, {2, 1, nil}, {5, 3, nil}, {0, 0, nil}} {
		total, page, _ := ix.Linkers(ctx, "Hub.md", tt.offset, tt.limit)
		var got []string
		for _, ln := range page {
			got = append(got, ln.Source)
		}
		if total != 2 || !slices.Equal(got, tt.want) {
			t.Errorf("Linkers(%d, %d) = %d %q, want 2 %q", tt.offset, tt.limit, total, got, tt.want)
		}
	}

	total, page, _ = ix.LinkersOfName(ctx, "missing note", 0, 10)
	want = []LinkingNote{
		{Source: "c.md", Links: []string{"Missing Note"}, Lines: []int{2}},
		{Source: "d.md", Links: []string{"Missing Note|later"}, Lines: []int{1}},
	}
	if total != 2 || !equalNotes(page, want) {
		t.Errorf("LinkersOfName = %d %+v", total, page)
	}
	if total, page, _ := ix.LinkersOfName(ctx, "missing note", 1, 10); total != 2 || len(page) != 1 || page[0].Source != "d.md" {
		t.Errorf("LinkersOfName page 2 = %d %+v", total, page)
	}

	rel, others, ok, _ := ix.Named(ctx, "hub")
	if !ok || rel != "Hub.md" || !slices.Equal(others, []string{"Archive/Hub.md"}) {
		t.Errorf("Named(hub) = %q %q %v", rel, others, ok)
	}
	rel, others, ok, _ = ix.Named(ctx, "Archive/Hub")
	if !ok || rel != "Archive/Hub.md" || !slices.Equal(others, []string{"Hub.md"}) {
		t.Errorf("Named(Archive/Hub) = %q %q %v", rel, others, ok)
	}
	if _, _, ok, _ := ix.Named(ctx, "Missing Note"); ok {
		t.Error("Named found a note that does not exist")
	}
}

func equalNotes(a, b []LinkingNote) bool {
	return slices.EqualFunc(a, b, func(x, y LinkingNote) bool {
		return x.Source == y.Source && slices.Equal(x.Links, y.Links) && slices.Equal(x.Lines, y.Lines)
	})
}
