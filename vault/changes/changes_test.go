package changes

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestPublishOrder(t *testing.T) {
	var f Feed
	var got []string
	record := func(s string) { got = append(got, s) }
	f.Bracket(func(b Batch) func() {
		paths := b.Paths
		record("before1 " + strings.Join(paths, ","))
		return func() { record("after1") }
	})
	f.Listen(func(b Batch) { record("index " + strings.Join(b.Paths, ",")) })
	f.Bracket(func(Batch) func() { record("before2"); return nil })
	f.Listen(func(Batch) { record("cache") })

	f.PublishPaths([]string{"a.md", "b"})
	f.PublishPaths(nil) // dropped
	want := []string{"before1 a.md,b", "before2", "index a.md,b", "cache", "after1"}
	if !slices.Equal(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}
}

func TestPublishCopiesPaths(t *testing.T) {
	var f Feed
	var seen []string
	f.Listen(func(b Batch) { seen = b.Paths })
	in := []string{"a.md"}
	f.PublishPaths(in)
	in[0] = "changed"
	if seen[0] != "a.md" {
		t.Errorf("listener saw the caller's later change: %q", seen)
	}
}

func TestNilFeed(t *testing.T) {
	var f *Feed
	f.Listen(func(Batch) { t.Error("called") })
	f.Bracket(func(Batch) func() { t.Error("called"); return nil })
	f.PublishPaths([]string{"a.md"})
}

// A panicking listener is logged; the others still run, and Publish
// returns normally to the write that called it.
func TestListenerPanic(t *testing.T) {
	var buf bytes.Buffer
	f := Feed{Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	var ran []string
	f.Bracket(func(Batch) func() { return func() { panic("after") } })
	f.Listen(func(Batch) { panic("boom") })
	f.Listen(func(Batch) { ran = append(ran, "second") })
	f.PublishPaths([]string{"a.md"})
	if !slices.Equal(ran, []string{"second"}) {
		t.Errorf("later listener ran %v", ran)
	}
	for _, want := range []string{"change listener panicked", "boom", "after"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
}

// Batches published concurrently reach each listener one at a time and
// whole: a bracket's after-half always pairs with its own before-half.
func TestPublishSerialised(t *testing.T) {
	var f Feed
	var mu sync.Mutex
	inside := 0
	var pairs []string
	f.Bracket(func(b Batch) func() {
		paths := b.Paths
		mu.Lock()
		inside++
		if inside != 1 {
			t.Errorf("%d batches delivered at once", inside)
		}
		mu.Unlock()
		return func() {
			mu.Lock()
			inside--
			pairs = append(pairs, paths[0])
			mu.Unlock()
		}
	})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.PublishPaths([]string{fmt.Sprint(i)})
		}()
	}
	wg.Wait()
	if len(pairs) != 50 {
		t.Errorf("%d batches delivered, want 50", len(pairs))
	}
}

// A batch's written files reach every listener as published; a batch
// without paths reaches none.
func TestPublishWritten(t *testing.T) {
	var f Feed
	var got []Batch
	f.Listen(func(b Batch) { got = append(got, b) })
	written := map[string]File{"a.md": {Data: []byte("new"), Abs: "/v/a.md"}}
	f.Publish(Batch{Paths: []string{"a.md", "b.md"}, Written: written})
	f.Publish(Batch{Written: written})
	if len(got) != 1 || string(got[0].Written["a.md"].Data) != "new" || len(got[0].Written) != 1 {
		t.Errorf("listener saw %+v", got)
	}
}

func TestFileIs(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "a.md")
	if err := os.WriteFile(abs, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		t.Fatal(err)
	}
	f := File{Data: []byte("new"), Info: fi, Abs: abs}
	tests := []struct {
		name string
		edit func()
		want bool
	}{
		{"as written", func() {}, true},
		{"another size", func() { os.WriteFile(abs, []byte("newer"), 0o644) }, false},
		{"replaced by another file", func() {
			os.WriteFile(abs+".tmp", []byte("new"), 0o644)
			os.Rename(abs+".tmp", abs)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.edit()
			now, err := os.Lstat(abs)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Is(now); got != tt.want {
				t.Errorf("Is = %v, want %v", got, tt.want)
			}
		})
	}
	if f.Is(nil) || (File{Data: []byte("new")}).Is(fi) {
		t.Error("Is holds without stat data")
	}
}
