package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault/changes"
)

// placer is a recorder that checks the file left pending at each phase,
// and notes what it was handed.
type placer struct {
	t       *testing.T
	root    string
	placing []string          // the rel of each Prepare with a placing file
	written int               // Prepare calls without one
	seen    map[string]string // each touched path's content on disk when Prepare began
}

func (p *placer) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	p.look(c.Paths)
	pl := c.Placing
	if pl == nil {
		p.written++
		return &pendingFunc{publish: func() (string, error) { return "c0ffee", nil }}, nil
	}
	p.placing = append(p.placing, pl.Rel)
	f, ok := c.Written[pl.Rel]
	if !ok {
		p.t.Errorf("Written[%s] holds nothing", pl.Rel)
	}
	if got, err := os.ReadFile(pl.Tmp); err != nil || string(got) != string(f.Data) {
		p.t.Errorf("temporary file holds %q (%v), written %q", got, err, f.Data)
	}
	if tfi, err := os.Stat(pl.Tmp); err != nil || !f.Is(tfi) {
		p.t.Errorf("Written[%s] gives the stat data of another file than %s", pl.Rel, pl.Tmp)
	}
	return &pendingFunc{publish: func() (string, error) {
		// Published: the file is in place.
		full := filepath.Join(p.root, filepath.FromSlash(pl.Rel))
		if got, err := os.ReadFile(full); err != nil || string(got) != string(f.Data) {
			p.t.Errorf("%s holds %q (%v) at Publish, want %q", pl.Rel, got, err, f.Data)
		}
		if _, err := os.Stat(pl.Tmp); !errors.Is(err, fs.ErrNotExist) {
			p.t.Errorf("temporary file still there at Publish (%v)", err)
		}
		return "c0ffee", nil
	}}, nil
}

func (p *placer) look(paths []string) {
	for _, rel := range paths {
		data, err := os.ReadFile(filepath.Join(p.root, filepath.FromSlash(rel)))
		if err != nil {
			p.seen[rel] = "(missing)"
			continue
		}
		p.seen[rel] = string(data)
	}
}

var _ changes.Recorder = (*placer)(nil)

// tempFilesIn lists the temporary files under root.
func tempFilesIn(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for rel := range snapshot(t, root) {
		if strings.HasPrefix(filepath.Base(rel), tempPrefix) {
			out = append(out, rel)
		}
	}
	return out
}

// TestWritePending: a change's last write is handed to the recorder's
// Prepare under its temporary name, still out of place, and is in place
// at Publish;
// an operation after a write puts that write into place first, so the
// change goes on with the file as written; a change that fails leaves
// no temporary file.
func TestWritePending(t *testing.T) {
	tests := []struct {
		name    string
		fn      func(v *Vault, tx *Tx) error
		fails   bool
		placing []string          // the placing files handed to Prepare
		written int               // Prepare calls without one
		seen    map[string]string // each touched path on disk when recording began
		after   map[string]string // the files after the change
	}{
		{
			name:    "overwrite",
			fn:      func(v *Vault, tx *Tx) error { return writeRel(v, tx, "notes/a.md", "new") },
			placing: []string{"notes/a.md"},
			seen:    map[string]string{"notes/a.md": "old"},
			after:   map[string]string{"notes/a.md": "new"},
		},
		{
			name:    "new note in new folders",
			fn:      func(v *Vault, tx *Tx) error { return writeRel(v, tx, "x/y/new.md", "new") },
			placing: []string{"x/y/new.md"},
			seen:    map[string]string{"x/y/new.md": "(missing)"},
			after:   map[string]string{"x/y/new.md": "new", "notes/a.md": "old"},
		},
		{
			name: "two writes: the first is in place when the second is made",
			fn: func(v *Vault, tx *Tx) error {
				if err := writeRel(v, tx, "notes/a.md", "first"); err != nil {
					return err
				}
				return writeRel(v, tx, "notes/b.md", "second")
			},
			placing: []string{"notes/b.md"},
			seen:    map[string]string{"notes/a.md": "first", "notes/b.md": "(missing)"},
			after:   map[string]string{"notes/a.md": "first", "notes/b.md": "second"},
		},
		{
			name: "a write then a removal",
			fn: func(v *Vault, tx *Tx) error {
				if err := writeRel(v, tx, "notes/b.md", "b"); err != nil {
					return err
				}
				p, err := v.Resolve("notes/a.md")
				if err != nil {
					return err
				}
				return tx.Remove(p)
			},
			written: 1,
			seen:    map[string]string{"notes/a.md": "(missing)", "notes/b.md": "b"},
			after:   map[string]string{"notes/b.md": "b"},
		},
		{
			name: "a change that fails after its write",
			fn: func(v *Vault, tx *Tx) error {
				if err := writeRel(v, tx, "notes/a.md", "new"); err != nil {
					return err
				}
				return errors.New("the change went wrong")
			},
			fails: true,
			after: map[string]string{"notes/a.md": "old"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, root := newTestVault(t, Options{})
			mkfile(t, root, "notes/a.md", "old")
			rec := &placer{t: t, root: root, seen: map[string]string{}}
			v.SetRecorder(rec)
			_, err := v.Update(t.Context(), func(tx *Tx) error {
				tx.Summarize("test")
				return tt.fn(v, tx)
			})
			if (err != nil) != tt.fails {
				t.Fatalf("err = %v, want failure %v", err, tt.fails)
			}
			if strings.Join(rec.placing, ",") != strings.Join(tt.placing, ",") || rec.written != tt.written {
				t.Errorf("Prepare got placing files %q and %d calls without, want %q and %d", rec.placing, rec.written, tt.placing, tt.written)
			}
			for rel, want := range tt.seen {
				if rec.seen[rel] != want {
					t.Errorf("%s held %q when recording began, want %q", rel, rec.seen[rel], want)
				}
			}
			for rel, want := range tt.after {
				if got := readRel(t, root, rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
			v.dropping.Wait() // a recorded change's backup is removed in the background
			if tmp := tempFilesIn(t, root); len(tmp) > 0 {
				t.Errorf("temporary files left: %q", tmp)
			}
		})
	}
}

// writeRel writes data to rel through tx.
func writeRel(v *Vault, tx *Tx, rel, data string) error {
	p, err := v.Resolve(rel)
	if err != nil {
		return err
	}
	return tx.WriteFile(p, []byte(data))
}
