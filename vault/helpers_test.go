package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault/changes"
)

// newTestVault opens an empty vault in a fresh temporary folder and
// returns it with its root as the tests see it (symlinks resolved).
func newTestVault(t testing.TB, opts Options) (*Vault, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(root, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return v, root
}

// mkfile writes a file below root, creating its folders.
func mkfile(t testing.TB, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mkdir creates a folder below root.
func mkdir(t testing.TB, root, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
}

// symlink creates the link rel (below root) pointing at target, which is
// used exactly as given (relative targets are relative to the link).
func symlink(t testing.TB, root, rel, target string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, abs); err != nil {
		t.Fatal(err)
	}
}

// readRel reads a file below root.
func readRel(t testing.TB, root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// exists reports whether rel (below root) exists, without following a
// final symlink.
func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// snapshot records everything below dir: each entry's type, permission
// bits and content (or link target), so a test can check that a failed
// change left the vault byte-identical.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, abs)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(abs)
			if err != nil {
				return err
			}
			out[rel] = "link -> " + target
		case d.IsDir():
			out[rel] = "dir " + fi.Mode().Perm().String()
		default:
			data, err := os.ReadFile(abs)
			if err != nil {
				return err
			}
			out[rel] = "file " + fi.Mode().Perm().String() + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameSnapshot fails the test when two snapshots differ, naming each
// difference.
func sameSnapshot(t testing.TB, before, after map[string]string) {
	t.Helper()
	for k, b := range before {
		a, ok := after[k]
		switch {
		case !ok:
			t.Errorf("%s: was %q, now missing", k, b)
		case a != b:
			t.Errorf("%s: was %q, now %q", k, b, a)
		}
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: new entry %q", k, a)
		}
	}
}

// checkClientError asserts err is a client-facing *Error of the wanted
// kind whose message never shows the server's absolute paths.
func checkClientError(t testing.TB, err error, kind error, given string, roots ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%q: no error, want %v", given, kind)
	}
	var ve *Error
	if !errors.As(err, &ve) {
		t.Errorf("%q: error %T (%v) is not a *vault.Error", given, err, err)
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Errorf("%q: error %q is not %v", given, err, kind)
	}
	noAbsPath(t, err.Error(), given, roots...)
}

// noAbsPath fails when msg shows one of roots, unless the client itself
// sent that absolute path (then echoing it back reveals nothing).
func noAbsPath(t testing.TB, msg, given string, roots ...string) {
	t.Helper()
	for _, r := range roots {
		if r == "" || strings.Contains(given, r) {
			continue
		}
		if strings.Contains(msg, r) {
			t.Errorf("%q: error %q shows the absolute path %s", given, msg, r)
		}
	}
}

// recorderFunc adapts a function to changes.Recorder: it is called as
// Publish, once the vault has put the change's files into place.
type recorderFunc func(summary string, paths []string) (string, error)

func (f recorderFunc) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	return publishing(ctx, c, func(_ context.Context, summary string, paths []string) (string, error) {
		return f(summary, paths)
	})
}

var _ changes.Recorder = recorderFunc(nil)

// publishing is the Prepare of a test recorder that records the change
// with record when it is published: the files are in place by then.
func publishing(ctx context.Context, c changes.Change, record func(ctx context.Context, summary string, paths []string) (string, error)) (changes.Pending, error) {
	return &pendingFunc{publish: func() (string, error) { return record(ctx, c.Summary, c.Paths) }}, nil
}

// pendingFunc is a test recorder's changes.Pending: Publish calls
// publish; aborted counts Abort calls before any Publish.
type pendingFunc struct {
	publish func() (string, error)
	done    bool
	aborted int
}

func (p *pendingFunc) Publish() (string, error) {
	p.done = true
	return p.publish()
}

func (p *pendingFunc) Abort() {
	if !p.done {
		p.aborted++
	}
	p.done = true
}

// renameRewritingBulk renames notes/a.md to moved/a.md and, in the same
// change, writes data to bulk/b00.md… in one batch large enough for one
// flush barrier (minBarrierBatch), as a rename relinking many notes does.
func renameRewritingBulk(ctx context.Context, v *Vault, data string) error {
	_, err := v.RenameFile(ctx, "notes/a.md", "moved/a.md", func(tx *Tx, from, to Path) error {
		var batch []FileWrite
		for i := range minBarrierBatch + 4 {
			p, err := v.Resolve(fmt.Sprintf("bulk/b%02d.md", i))
			if err != nil {
				return err
			}
			batch = append(batch, FileWrite{Path: p, Data: []byte(data)})
		}
		return discardInfos(tx.WriteFiles(batch))
	})
	return err
}
