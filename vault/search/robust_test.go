//go:build unix

package search

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vaultmcp/vault"
	"vaultmcp/vault/pattern"
)

// A pathological pattern is refused at once instead of taking seconds per
// file name; a long one too.
func TestGlobBounded(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "a", "Note with a rather long name 0001.md": "n"})
	e := New(v, Options{})
	for _, p := range []string{strings.Repeat("{?,??}", 22), strings.Repeat("{a,b}", 8), strings.Repeat("x", pattern.MaxGlob+1)} {
		for _, run := range []func() error{
			func() error { _, err := e.Glob(context.Background(), GlobQuery{Pattern: p}); return err },
			func() error { _, err := e.Find(context.Background(), FindQuery{Name: p + "*"}); return err },
			func() error { _, err := e.Grep(context.Background(), GrepQuery{Query: "a", Include: p}); return err },
		} {
			err := run()
			if !errors.Is(err, vault.ErrInvalidInput) {
				t.Errorf("pattern %.40q…: err = %v, want invalid input", p, err)
			}
		}
	}
	if res, err := e.Glob(context.Background(), GlobQuery{Pattern: strings.Repeat("{?,??}", 6) + "*"}); err != nil || res.Total != 1 {
		t.Errorf("64 expansions: %+v %v", res, err)
	}
}

// A cancelled search stops and says so.
func TestSearchCancelled(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "a", "b/c.md": "c"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, e := range map[string]*Engine{"disk": New(v, Options{}), "memory": New(v, Options{Texts: loadTexts(t, v)})} {
		if _, err := e.Glob(ctx, GlobQuery{Pattern: "*"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Glob = %v", name, err)
		}
		if _, err := e.Grep(ctx, GrepQuery{Query: "a"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Grep = %v", name, err)
		}
	}
}

// FIFOs are passed over by every scan and refused when named.
func TestSearchSkipsFIFO(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "needle"})
	if err := syscall.Mkfifo(filepath.Join(v.Root(), "x.md"), 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	e := New(v, Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if res, err := e.Grep(context.Background(), GrepQuery{Query: "needle"}); err != nil || res.Total != 1 {
			t.Errorf("grep: %+v %v", res, err)
		}
		if _, err := e.Grep(context.Background(), GrepQuery{Query: "needle", Path: "x.md"}); err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("grep of the FIFO itself: %v", err)
		}
		if res, err := e.Glob(context.Background(), GlobQuery{Pattern: "*.md"}); err != nil || res.Total != 1 {
			t.Errorf("glob: %+v %v", res, err)
		}
		if res, err := e.Find(context.Background(), FindQuery{MaxSize: -1}); err != nil || res.Total != 1 {
			t.Errorf("find: %+v %v", res, err)
		}
		if st, err := e.Stats(context.Background()); err != nil || st.Files != 1 {
			t.Errorf("stats: %+v %v", st, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a search hung on a FIFO")
	}
}

// A panic in a worker fails that search with an error and is logged; the
// process goes on.
func TestWorkerPanicRecovered(t *testing.T) {
	v := newTestVault(t, map[string]string{"a.md": "a", "b/c.md": "c", "b/d/e.md": "e"})
	var logs bytes.Buffer
	e := New(v, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	root, _ := v.Resolve("")
	err := walkFiles(context.Background(), e.newGuard(), v, root, 2, func(string) { panic("in onDir") }, func(fileRef) {})
	if !errors.Is(err, errInternal) {
		t.Errorf("onDir panic: err = %v", err)
	}
	err = walkFiles(context.Background(), e.newGuard(), v, root, 2, nil, func(fileRef) { panic("in onFile") })
	if !errors.Is(err, errInternal) {
		t.Errorf("onFile panic: err = %v", err)
	}
	if !strings.Contains(logs.String(), "in onFile") || !strings.Contains(logs.String(), "in onDir") {
		t.Errorf("panics not logged:\n%s", logs.String())
	}
}
