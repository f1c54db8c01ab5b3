package indexsource_test

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
	"vaultmcp/vault/bases"
	"vaultmcp/vault/bases/indexsource"
	"vaultmcp/vault/index"
	"vaultmcp/vault/markdown"
)

// refNote is a file as the reference evaluation reads it: straight from
// disk, parsed with the Markdown parser, nothing shared with the engine.
type refNote struct {
	path    string
	tags    []string
	rating  *int
	draft   *bool
	created string // YYYY-MM-DD, "" when absent
	title   *string
}

func readRefNotes(t *testing.T, dir string) []refNote {
	var out []refNote
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		n := refNote{path: filepath.ToSlash(rel)}
		if strings.HasSuffix(p, ".md") {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			md := markdown.Parse(src)
			for _, tg := range md.Tags {
				n.tags = append(n.tags, tg.Name)
			}
			fm := md.Frontmatter
			if r, ok := fm["rating"].(int); ok {
				n.rating = &r
			}
			if b, ok := fm["draft"].(bool); ok {
				n.draft = &b
			}
			switch c := fm["created"].(type) {
			case time.Time:
				n.created = c.Format(time.DateOnly)
			case string:
				n.created = c
			}
			if s, ok := fm["title"].(string); ok {
				n.title = &s
			}
		}
		out = append(out, n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// atom is one filter: its expression and the reference's reading of it.
type atom struct {
	expr string
	ref  func(n refNote) bool
}

func randomAtom(r *rand.Rand, notes []refNote) atom {
	tagsSeen := []string{"project", "idea", "area", "area/work", "status/draft", "reading", "projet", "café", "übersicht", "日本語", "zettel", "nosuch"}
	switch r.IntN(8) {
	case 0:
		k := r.IntN(6)
		ops := []string{">", ">=", "<", "<=", "==", "!="}
		op := ops[r.IntN(len(ops))]
		expr := fmt.Sprintf("rating %s %d", op, k)
		if r.IntN(2) == 0 {
			flip := map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}
			expr = fmt.Sprintf("%d %s rating", k, flip[op])
		}
		return atom{expr, func(n refNote) bool {
			if n.rating == nil {
				return op == "!="
			}
			v := *n.rating
			switch op {
			case ">":
				return v > k
			case ">=":
				return v >= k
			case "<":
				return v < k
			case "<=":
				return v <= k
			case "==":
				return v == k
			}
			return v != k
		}}
	case 1:
		want := r.IntN(2) == 0
		return atom{fmt.Sprintf("draft == %v", want), func(n refNote) bool { return n.draft != nil && *n.draft == want }}
	case 2:
		return atom{"draft", func(n refNote) bool { return n.draft != nil && *n.draft }}
	case 3:
		tg := tagsSeen[r.IntN(len(tagsSeen))]
		return atom{fmt.Sprintf("file.hasTag(%q)", tg), func(n refNote) bool {
			for _, have := range n.tags {
				h, w := strings.ToLower(have), strings.ToLower(tg)
				if h == w || strings.HasPrefix(h, w+"/") {
					return true
				}
			}
			return false
		}}
	case 4:
		p := notes[r.IntN(len(notes))].path
		dir := filepath.ToSlash(filepath.Dir(p))
		if dir == "." {
			dir = "Journal"
		}
		if r.IntN(2) == 0 {
			dir = strings.Split(dir, "/")[0]
		}
		return atom{fmt.Sprintf("file.inFolder(%q)", dir), func(n refNote) bool { return strings.HasPrefix(n.path, dir+"/") }}
	case 5:
		d := fmt.Sprintf("2025-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
		if r.IntN(2) == 0 {
			return atom{fmt.Sprintf("created > date(%q)", d), func(n refNote) bool { return n.created != "" && n.created > d }}
		}
		return atom{fmt.Sprintf("created <= %q", d), func(n refNote) bool { return n.created != "" && n.created <= d }}
	case 6:
		ext := []string{"md", "png", "pdf"}[r.IntN(3)]
		return atom{fmt.Sprintf("file.ext == %q", ext), func(n refNote) bool { return strings.TrimPrefix(filepath.Ext(n.path), ".") == ext }}
	default:
		s := []string{"0", "1", "e", "Note", "é"}[r.IntN(5)]
		return atom{fmt.Sprintf("title.contains(%q)", s), func(n refNote) bool { return n.title != nil && strings.Contains(*n.title, s) }}
	}
}

// randomFilter builds a filter as a YAML fragment (and/or/not lists of
// expressions, expressions with && || !) and its reference predicate.
func randomFilter(r *rand.Rand, notes []refNote, depth int, indent string) (string, func(refNote) bool) {
	if depth == 0 || r.IntN(3) == 0 {
		a := randomAtom(r, notes)
		switch r.IntN(4) {
		case 0:
			b := randomAtom(r, notes)
			return fmt.Sprintf("'%s && %s'", a.expr, b.expr), func(n refNote) bool { return a.ref(n) && b.ref(n) }
		case 1:
			b := randomAtom(r, notes)
			return fmt.Sprintf("'(%s) || !(%s)'", a.expr, b.expr), func(n refNote) bool { return a.ref(n) || !b.ref(n) }
		}
		return "'" + a.expr + "'", a.ref
	}
	op := []string{"and", "or", "not"}[r.IntN(3)]
	k := 1 + r.IntN(3)
	var b strings.Builder
	b.WriteString(op + ":")
	var kids []func(refNote) bool
	for range k {
		s, f := randomFilter(r, notes, depth-1, indent+"    ")
		b.WriteString("\n" + indent + "  - " + s)
		kids = append(kids, f)
	}
	return b.String(), func(n refNote) bool {
		switch op {
		case "and":
			for _, f := range kids {
				if !f(n) {
					return false
				}
			}
			return true
		case "or":
			for _, f := range kids {
				if f(n) {
					return true
				}
			}
			return false
		}
		for _, f := range kids {
			if f(n) {
				return false
			}
		}
		return true
	}
}

// refSort orders notes by one key, empty values last, text without
// regard to case, ties by path.
func refSort(notes []refNote, key string, desc bool) {
	type k struct {
		empty bool
		num   float64
		text  string
	}
	keyOf := func(n refNote) k {
		switch key {
		case "rating":
			if n.rating == nil {
				return k{empty: true}
			}
			return k{num: float64(*n.rating)}
		case "created":
			return k{empty: n.created == "", text: n.created}
		case "title":
			if n.title == nil || *n.title == "" {
				return k{empty: true}
			}
			return k{text: *n.title}
		}
		return k{text: filepath.Base(n.path)}
	}
	slices.SortStableFunc(notes, func(a, b refNote) int {
		x, y := keyOf(a), keyOf(b)
		if x.empty != y.empty {
			if x.empty {
				return 1
			}
			return -1
		}
		c := 0
		switch {
		case x.empty:
		case key == "rating":
			c = int(x.num - y.num)
		default:
			c = strings.Compare(strings.ToLower(x.text), strings.ToLower(y.text))
			if c == 0 {
				c = strings.Compare(x.text, y.text)
			}
		}
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
}

// TestDifferential runs hundreds of random filters and sorts built from
// the grammar through the whole pipeline (generated vault, index, this
// source, the engine) and checks each answer against a reference
// evaluation written here, over the notes read from disk.
func TestDifferential(t *testing.T) {
	dir := t.TempDir()
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 400, Seed: 31, Varied: true}); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	src, err := indexsource.New(ix, dir, time.UTC).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	notes := readRefNotes(t, dir)
	r := rand.New(rand.NewPCG(31, 2026))
	const runs = 400
	partial := 0 // runs whose answer is neither empty nor every file
	for i := range runs {
		filter, ref := randomFilter(r, notes, 3, "  ")
		key := []string{"rating", "created", "title", "file.name"}[r.IntN(4)]
		desc := r.IntN(2) == 0
		dirName := "ASC"
		if desc {
			dirName = "DESC"
		}
		text := fmt.Sprintf("filters:\n  %s\nviews:\n  - type: table\n    name: V\n    sort:\n      - property: %s\n        direction: %s\n", filter, key, dirName)
		b, err := bases.Parse([]byte(text))
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, text)
		}
		q, err := bases.Compile(b, "")
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, text)
		}
		res, err := q.Run(ctx, src, bases.Options{Location: time.UTC})
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, text)
		}
		if res.Errors != nil {
			t.Fatalf("run %d: errors %v\n%s", i, res.Errors.First, text)
		}
		var want []refNote
		for _, n := range notes {
			if ref(n) {
				want = append(want, n)
			}
		}
		refSort(want, strings.TrimPrefix(key, "file."), desc)
		got := make([]string, len(res.Rows))
		for j, row := range res.Rows {
			got[j] = row.Path
		}
		wantPaths := make([]string, len(want))
		for j, n := range want {
			wantPaths[j] = n.path
		}
		if len(got) > 0 && len(got) < len(notes) {
			partial++
		}
		if !slices.Equal(got, wantPaths) {
			t.Fatalf("run %d: %d rows, reference %d\n%s\ngot  %.300v\nwant %.300v", i, len(got), len(wantPaths), text, got, wantPaths)
		}
	}
	if partial < runs/3 {
		t.Errorf("only %d of %d filters selected some files but not all: the generator tests too little", partial, runs)
	}
	t.Logf("%d runs over %d files, %d with partial answers", runs, len(notes), partial)
}

// TestHiddenFilesUnseen: file() and this never reach a file the index
// does not list (.obsidian, .trash), whatever path an expression gives.
func TestHiddenFilesUnseen(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{"a.md": "# A\n", ".obsidian/app.json": "{}\n", "b.base": "views: []\n"} {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	src, err := indexsource.New(ix, dir, time.UTC).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.File(".obsidian/app.json"); ok {
		t.Error("a hidden file was found")
	}
	if f, ok := src.File("b.base"); !ok || f.Size != 10 {
		t.Errorf("the base file: %+v %v", f, ok)
	}
	got, err := bases.Eval(ctx, `file(".obsidian/app.json")`, src, nil, bases.Options{})
	if err != nil || !got.IsNull() {
		t.Errorf("file() of a hidden file: %v %v", got, err)
	}
}
