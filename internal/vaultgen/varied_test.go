package vaultgen

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/vault"
	"vaultmcp/vault/index"
)

// A varied vault holds every language, nested folders, attachments that
// its notes embed, names stored decomposed, the rare words in a few notes
// each, and settings the index leaves out; its links resolve as in the
// plain vault (one in twenty names nothing).
func TestGenerateVaried(t *testing.T) {
	dir := t.TempDir()
	const n = 2000
	g, err := Generate(dir, Options{Notes: n, Seed: 5, Varied: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Paths) != n || len(g.Attachments) != n/25 {
		t.Fatalf("%d notes, %d attachments", len(g.Paths), len(g.Attachments))
	}
	scripts := map[string]bool{}
	nfd, deep := 0, 0
	for i, rel := range g.Paths {
		if g.Path(i) != rel || !strings.HasSuffix(rel, "/"+norm.NFD.String(g.Name(i))+".md") && !strings.HasSuffix(rel, "/"+g.Name(i)+".md") {
			t.Fatalf("note %d: path %s, name %s", i, rel, g.Name(i))
		}
		if !norm.NFC.IsNormalString(rel) {
			nfd++
		}
		if strings.Count(rel, "/") >= 4 {
			deep++
		}
		for _, s := range []string{"é", "ß", "Σ", "ノ", "笔"} {
			if strings.Contains(norm.NFC.String(rel), s) {
				scripts[s] = true
			}
		}
	}
	if len(scripts) != 5 || nfd == 0 || deep == 0 {
		t.Errorf("scripts %v, %d decomposed names, %d notes four folders deep", scripts, nfd, deep)
	}
	for _, word := range RareWords {
		count := 0
		for _, rel := range g.Paths {
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.ToLower(string(data)), strings.ToLower(word)) {
				count++
			}
		}
		if count < 1 || count > n/rareEvery+1 {
			t.Errorf("%s in %d notes", word, count)
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
	files := 0
	ix.Files("", func(rel string) bool {
		if strings.HasPrefix(rel, ".") {
			t.Errorf("indexed %s", rel)
		}
		files++
		return true
	})
	if files != n+len(g.Attachments) {
		t.Errorf("%d files indexed, want %d", files, n+len(g.Attachments))
	}
	links, broken := 0, 0
	err = ix.EachNote(ctx, func(m *index.NoteMeta) bool {
		for _, to := range m.Links {
			links++
			if to == "" {
				broken++
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if links == 0 || broken*10 > links {
		t.Errorf("%d of %d links broken", broken, links)
	}
	att := g.Attachments[0]
	if bl, err := ix.Backlinks(ctx, att); err != nil || len(bl) != 1 {
		t.Errorf("backlinks of %s: %v %v", att, bl, err)
	}
}
