package index

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestResolve(t *testing.T) {
	n := newNames()
	for _, rel := range []string{
		"Note.md",
		"Project Ideas.md",
		"a/Shared.md",
		"b/Shared.md",
		"Shared.md",
		"deep/x/y/Only Deep.md",
		"a/b/Twin.md",
		"c/Twin.md",
		"attachments/image.png",
		"Note v1.2.md",
		"Café.md",
		"日本語ノート.md",
		"😀 Emoji.md",
		"folder/Note.md",
	} {
		n.add(rel)
	}
	tests := []struct {
		name, target, from, want string
	}{
		{"bare name", "Project Ideas", "x.md", "Project Ideas.md"},
		{"with .md", "Project Ideas.md", "x.md", "Project Ideas.md"},
		{"case-insensitive", "project ideas", "x.md", "Project Ideas.md"},
		{"self", "", "a/Shared.md", "a/Shared.md"},
		{"shared name, same folder wins", "Shared", "b/other.md", "b/Shared.md"},
		{"shared name, nearest root wins", "Shared", "z/other.md", "Shared.md"},
		{"twin, fewest folders then alphabetical", "Twin", "z.md", "c/Twin.md"},
		{"path from root", "a/Shared", "z/q.md", "a/Shared.md"},
		{"path from root with .md", "a/Shared.md", "z/q.md", "a/Shared.md"},
		{"path relative to note", "Shared", "a/q.md", "a/Shared.md"},
		{"relative ../", "../b/Shared", "a/q.md", "b/Shared.md"},
		{"partial path (tail)", "y/Only Deep", "z.md", "deep/x/y/Only Deep.md"},
		{"bare name deep", "Only Deep", "z.md", "deep/x/y/Only Deep.md"},
		{"attachment", "image.png", "z.md", "attachments/image.png"},
		{"attachment by path", "attachments/image.png", "z.md", "attachments/image.png"},
		{"dot in name", "Note v1.2", "z.md", "Note v1.2.md"},
		{"NFD query finds NFC file", "Cafe\u0301", "z.md", "Café.md"},
		{"CJK", "日本語ノート", "z.md", "日本語ノート.md"},
		{"emoji", "😀 emoji", "z.md", "😀 Emoji.md"},
		{"missing", "Nope", "z.md", ""},
		{"leading slash", "/folder/Note", "z/q.md", "folder/Note.md"},
		{"folder/Note vs root Note", "folder/Note", "z.md", "folder/Note.md"},
		{"root Note for bare name", "Note", "z.md", "Note.md"},
		{"same-folder Note", "Note", "folder/q.md", "folder/Note.md"},
		{"escaping .. is broken", "../../Note", "a/q.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := n.resolve(tt.target, tt.from)
			if tt.want == "" {
				if ok {
					t.Fatalf("resolve(%q, %q) = %q, want broken", tt.target, tt.from, got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Fatalf("resolve(%q, %q) = %q, %v; want %q", tt.target, tt.from, got, ok, tt.want)
			}
		})
	}
}

func TestNamesRemove(t *testing.T) {
	n := newNames()
	n.add("a/X.md")
	n.add("X.md")
	if got, _ := n.resolve("X", "q.md"); got != "X.md" {
		t.Fatalf("got %q", got)
	}
	n.remove("X.md")
	if got, _ := n.resolve("X", "q.md"); got != "a/X.md" {
		t.Fatalf("after remove got %q, want a/X.md", got)
	}
	n.remove("a/X.md")
	if _, ok := n.resolve("X", "q.md"); ok {
		t.Fatal("resolved after both removed")
	}
}

// Two files whose paths differ only in case (possible on Linux): when one
// goes, links find the other, as a fresh build would.
func TestNamesRemoveCaseTwin(t *testing.T) {
	tests := []struct {
		add          []string
		remove       string
		target, want string
	}{
		{[]string{"Note.md", "note.md"}, "Note.md", "note", "note.md"},
		{[]string{"Note.md", "note.md"}, "note.md", "note", "Note.md"},
		{[]string{"d/Note.md", "d/NOTE.md"}, "d/Note.md", "d/note", "d/NOTE.md"},
		{[]string{"d/Note.md", "d/NOTE.md"}, "d/Note.md", "note", "d/NOTE.md"},
	}
	for _, tt := range tests {
		n := newNames()
		for _, rel := range tt.add {
			n.add(rel)
		}
		n.remove(tt.remove)
		if got, ok := n.resolve(tt.target, "x.md"); got != tt.want {
			t.Errorf("%q minus %s: resolve(%q) = %q, %v; want %q", tt.add, tt.remove, tt.target, got, ok, tt.want)
		}
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{".", "a/b.md", "a/b.md"},
		{"a", "a/b.md", "b.md"},
		{"a/x", "a/b.md", "../b.md"},
		{"c", "a/b.md", "../a/b.md"},
		{"a/b", "a/b/c/d.md", "c/d.md"},
	}
	for _, tt := range tests {
		if got := relPath(tt.dir, tt.target); got != tt.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tt.dir, tt.target, got, tt.want)
		}
	}
}

// resolveAsWritten is resolve as first written, folding every candidate
// name whole (key(name+".md")) and taking folders with path.Dir: the
// reference the quicker resolve is held to.
func (n *names) resolveAsWritten(target, from string) (string, bool) {
	t := strings.TrimSpace(target)
	if t == "" {
		return from, from != ""
	}
	t = strings.TrimPrefix(t, "/")
	exact := func(p string) (string, bool) {
		if strings.HasPrefix(p, "../") || p == ".." {
			return "", false
		}
		k := key(p)
		if rel, ok := n.byPath[k+".md"]; ok {
			return rel, true
		}
		rel, ok := n.byPath[k]
		return rel, ok
	}
	byName := func(base string) (string, bool) {
		list := n.byBase[key(base)]
		if len(list) == 0 {
			return "", false
		}
		for _, rel := range list {
			if path.Dir(rel) == path.Dir(from) {
				return rel, true
			}
		}
		return list[0], true
	}
	if strings.Contains(t, "/") {
		if rel, ok := exact(path.Clean(t)); ok {
			return rel, true
		}
		if rel, ok := exact(path.Join(path.Dir(from), t)); ok {
			return rel, true
		}
		return n.byTail(t, from)
	}
	if rel, ok := byName(t + ".md"); ok {
		return rel, true
	}
	return byName(t)
}

// resolveNames is a file table with names in several scripts, cases,
// Unicode forms and folders, shared and twinned.
func resolveNames() *names {
	n := newNames()
	for _, rel := range []string{
		"Note.md", "note.md", "folder/Note.md", "a/b/Note.md", "Note", "Note.md.md",
		"Café.md", "x/Cafe\u0301.md", "ÉTÉ.md", "été", "Straße.md", "STRASSE.md",
		"Ωμέγα.md", "ωμέγα.md", "日本語ノート.md", "한국어.md", "ﬁle.md", "İstanbul.md", "K.md",
		"a/Shared.md", "b/Shared.md", "Shared.md", "deep/x/y/Only Deep.md", "image.png",
		"a/image.png", "Note v1.2.md", "with space .md", "trailing\u0301", "ǅ.md", "ꞵ/β.md",
	} {
		n.add(rel)
	}
	return &n
}

// resolveFroms are the notes links are resolved from in those tests:
// always a clean vault path, or "" for the root.
var resolveFroms = []string{"", "z.md", "folder/q.md", "a/q.md", "a/b/q.md", "x/q.md", "ꞵ/q.md"}

// The quick resolve answers as the one first written, for targets in
// every form the table's names can be written in.
func TestResolveMatchesAsWritten(t *testing.T) {
	n := resolveNames()
	var targets []string
	for _, list := range n.byBase {
		for _, rel := range list {
			base := path.Base(rel)
			for _, form := range []string{rel, base, strings.TrimSuffix(base, ".md"), strings.TrimSuffix(rel, ".md")} {
				targets = append(targets, form, strings.ToUpper(form), strings.ToLower(form),
					norm.NFD.String(form), norm.NFC.String(form), " "+form+" ", "/"+form, "../"+form, form+".md")
			}
		}
	}
	targets = append(targets, "", " ", ".md", ".MD", "..", "/", "a/../Note", "./Note", "Cafe\u0301.MD", "\u0301", "e\u0301.md")
	for _, target := range targets {
		for _, from := range resolveFroms {
			got, gotOK := n.resolve(target, from)
			want, wantOK := n.resolveAsWritten(target, from)
			if got != want || gotOK != wantOK {
				t.Errorf("resolve(%q, %q) = %q, %v; as written %q, %v", target, from, got, gotOK, want, wantOK)
			}
		}
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"Note", "café", "Cafe\u0301.md", "a/Shared", "../b/Shared", "ÉTÉ", "x/y/Only Deep", "ﬁle", "k"} {
		f.Add(s, uint8(3))
	}
	n := resolveNames()
	f.Fuzz(func(t *testing.T, target string, fromAt uint8) {
		from := resolveFroms[int(fromAt)%len(resolveFroms)]
		got, gotOK := n.resolve(target, from)
		want, wantOK := n.resolveAsWritten(target, from)
		if got != want || gotOK != wantOK {
			t.Errorf("resolve(%q, %q) = %q, %v; as written %q, %v", target, from, got, gotOK, want, wantOK)
		}
	})
}

// appendKey folds as key does, and keyCache as key and linkKey do, for
// names in every script and form, and for bytes that are not UTF-8.
func TestAppendKeyMatchesKey(t *testing.T) {
	names := []string{"", "Note", "NOTE v1.2", "Café", "Cafe\u0301", "ÉTÉ", "Straße", "İstanbul", "ǅ", "Ωμέγα", "ΣΑΣ",
		"日本語ノート", "한국어", "\u1100\u1161", "😀 Emoji", "ﬁle", "K", "\xff", "a\xc3", "\xef\xbf\xbd", "x\u0301\u0300", "Ⓐ", "ꞵ"}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", "é", "E\u0301", "\u0301", "Σ", "ß", "İ", "\xff", "\xc3", "語", "ǅ", "\u0345", "ﬃ", " ", "/", "."}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		names = append(names, b.String())
	}
	// A build worker's cache hands out the same keys, met once or again,
	// as link targets (with folders and ".md") and as tags.
	cache := keyCache{}
	for range 2 {
		for _, s := range names {
			if got, want := string(appendKey(nil, s)), key(s); got != want {
				t.Errorf("appendKey(%q) = %q, key %q", s, got, want)
			}
			if got, want := cache.key(s), key(s); got != want {
				t.Errorf("keyCache.key(%q) = %q, key %q", s, got, want)
			}
			for _, target := range []string{s, s + ".md", s + ".MD", "Folder/" + s, s + "/" + s + ".md"} {
				if got, want := cache.linkKey(target), linkKey(target); got != want {
					t.Errorf("keyCache.linkKey(%q) = %q, linkKey %q", target, got, want)
				}
			}
		}
	}
}

// A rename's view of the table (renamed) resolves every target as the
// table itself does once the file is removed and added under its new
// name: for moves to another folder, to another name, to a case variant,
// onto a shared name and away from one, between case twins.
func TestNamesRenamedViewMatchesTheChangedTable(t *testing.T) {
	files := []string{
		"Note.md", "note.md", "a/Note.md", "a/b/Note.md", "Shared.md", "a/Shared.md",
		"Café.md", "x/Only.md", "attachments/image.png", "d/Twin.md", "d/TWIN.md",
	}
	renames := [][2]string{
		{"Note.md", "Renamed.md"}, {"Note.md", "z/Note.md"}, {"Note.md", "NOTE.md"},
		{"a/Note.md", "Shared.md2"}, {"x/Only.md", "Shared.md"}, {"Shared.md", "q/Else.md"},
		{"d/Twin.md", "d/twin2.md"}, {"d/TWIN.md", "e/Twin.md"}, {"Café.md", "Cafe\u0301 2.md"},
		{"attachments/image.png", "img/image.png"}, {"a/b/Note.md", "Note 2.md"},
	}
	targets := []string{"Note", "note", "NOTE", "Renamed", "a/Note", "b/Note", "z/Note", "Shared",
		"Shared.md2", "a/Shared", "q/Else", "Else", "Only", "x/Only", "Twin", "twin2", "d/twin", "e/Twin",
		"Café", "Café 2", "image.png", "img/image.png", "Note 2", "../Note", ""}
	froms := []string{"x.md", "a/q.md", "a/b/q.md", "d/q.md", "z/q.md", "Note.md"}
	for _, rn := range renames {
		live := newNames()
		for _, f := range files {
			live.add(f)
		}
		view := live.renamed(rn[0], rn[1])
		want := newNames()
		for _, f := range files {
			want.add(f)
		}
		want.remove(rn[0])
		want.add(rn[1])
		for _, target := range targets {
			for _, from := range froms {
				g, gok := view.resolve(target, from)
				w, wok := want.resolve(target, from)
				if g != w || gok != wok {
					t.Errorf("%s -> %s: resolve(%q, %q) = %q, %v in the view; %q, %v in the changed table", rn[0], rn[1], target, from, g, gok, w, wok)
				}
			}
		}
		// The live table is left as it was.
		fresh := newNames()
		for _, f := range files {
			fresh.add(f)
		}
		for _, target := range targets {
			for _, from := range froms {
				g, gok := live.resolve(target, from)
				w, wok := fresh.resolve(target, from)
				if g != w || gok != wok {
					t.Errorf("%s -> %s: the live table changed: resolve(%q, %q) = %q, %v; was %q, %v", rn[0], rn[1], target, from, g, gok, w, wok)
				}
			}
		}
	}
}
