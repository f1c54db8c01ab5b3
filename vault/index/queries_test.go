package index

import "testing"

func TestUnder(t *testing.T) {
	tests := []struct {
		rel, dir string
		want     bool
	}{
		{"a.md", "", true},
		{"notes", "notes", true},
		{"notes/a.md", "notes", true},
		{"notes/sub/a.md", "notes", true},
		{"notes/sub/a.md", "notes/sub", true},
		{"notes.md", "notes", false},
		{"notesx/a.md", "notes", false},
		{"note", "notes", false},
		{"other/notes/a.md", "notes", false},
		{"Notes/a.md", "notes", false}, // paths are compared as the index spells them
		{"notes/a.md", "notes/a.md", true},
		{"notes/a.md/b", "notes/a.md", true},
		{"", "notes", false},
		{"Café/a.md", "Café", true},
		{"Cafés/a.md", "Café", false},
	}
	for _, tt := range tests {
		if got := under(tt.rel, tt.dir); got != tt.want {
			t.Errorf("under(%q, %q) = %v, want %v", tt.rel, tt.dir, got, tt.want)
		}
	}
	// Asked of every file of the vault in a scan: it must not allocate,
	// also for a folder name longer than a concatenation's stack buffer.
	dir := "Zettelkasten/2024/a folder with a long name"
	rel := dir + "/Café crème 00015.md"
	var got bool
	if n := testing.AllocsPerRun(100, func() { got = under(rel, dir) }); n != 0 || !got {
		t.Errorf("under(%q, %q) = %v, allocating %v times a call; want true, 0", rel, dir, got, n)
	}
}
