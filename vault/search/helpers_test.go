package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"vaultmcp/vault"
)

// newTestVault writes files (vault-relative path → content) into a fresh
// folder and opens it as a vault.
func newTestVault(t testing.TB, files map[string]string) *vault.Vault {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "vault")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		writeFile(t, root, rel, content)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// memTexts stands in for the live index (vault/index is another
// package's work): the texts of every Markdown note, read once, and the
// names of the other files.
type memTexts struct {
	files map[string][]byte // nil content: known, not held
	ready bool
}

var _ Texts = (*memTexts)(nil)

func loadTexts(t testing.TB, v *vault.Vault) *memTexts {
	t.Helper()
	m := &memTexts{files: map[string][]byte{}, ready: true}
	root, err := v.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	err = v.Walk(root, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		if !strings.HasSuffix(rel, ".md") {
			m.files[rel] = nil
			return nil
		}
		data, err := os.ReadFile(filepath.Join(v.Root(), filepath.FromSlash(rel)))
		m.files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *memTexts) Texts(prefix string, fn func(rel string, content []byte) bool) bool {
	if !m.ready {
		return false
	}
	for rel, content := range m.files {
		if prefix != "" && rel != prefix && !strings.HasPrefix(rel, prefix+"/") {
			continue
		}
		if !fn(rel, content) {
			break
		}
	}
	return true
}

// notesOnly is a Texts source holding notes only, like the index: other
// files are not reported at all, or (with files) reported by Files.
type notesOnly struct{ m *memTexts }

func (n notesOnly) Texts(prefix string, fn func(rel string, content []byte) bool) bool {
	return n.m.Texts(prefix, func(rel string, content []byte) bool {
		return content == nil || fn(rel, content)
	})
}

type notesAndFiles struct{ notesOnly }

var _ Files = notesAndFiles{}

func (n notesAndFiles) Files(prefix string, fn func(rel string) bool) bool {
	return n.m.Texts(prefix, func(rel string, _ []byte) bool { return fn(rel) })
}

// generational is notesAndFiles with a generation, as the index has: the
// engine then remembers the files it reads from disk until it changes.
type generational struct {
	notesAndFiles
	gen *atomic.Uint64
}

var _ Generational = generational{}

func (g generational) Generation() uint64 { return g.gen.Load() }

// engines returns the ways an engine gets its texts: the disk (with its
// cache), a Texts source reporting every file (nil content for those it
// does not hold), one reporting notes with Files for the rest, and the
// same with a generation.
func engines(t testing.TB, v *vault.Vault) map[string]*Engine {
	return map[string]*Engine{
		"disk":          New(v, Options{}),
		"memory":        New(v, Options{Texts: loadTexts(t, v)}),
		"memory, Files": New(v, Options{Texts: notesAndFiles{notesOnly{loadTexts(t, v)}}}),
		"memory, Files, generation": New(v, Options{Texts: generational{notesAndFiles{notesOnly{loadTexts(t, v)}},
			new(atomic.Uint64)}}),
	}
}

func grepLines(t testing.TB, e *Engine, q GrepQuery) (*GrepResult, []string) {
	t.Helper()
	res, err := e.Grep(context.Background(), q)
	if err != nil {
		t.Fatalf("Grep(%+v): %v", q, err)
	}
	var out []string
	for _, l := range res.Lines {
		sep := ":"
		if !l.Match {
			sep = "-"
		}
		if l.Break {
			out = append(out, "--")
		}
		out = append(out, l.Path+sep+strconv.Itoa(l.Num)+sep+" "+l.Text)
	}
	return res, out
}
