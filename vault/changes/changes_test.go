package changes

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestPublishOrder(t *testing.T) {
	var f Feed
	var got []string
	record := func(s string) { got = append(got, s) }
	f.Bracket(func(paths []string) func() {
		record("before1 " + strings.Join(paths, ","))
		return func() { record("after1") }
	})
	f.Listen(func(paths []string) { record("index " + strings.Join(paths, ",")) })
	f.Bracket(func([]string) func() { record("before2"); return nil })
	f.Listen(func([]string) { record("cache") })

	f.Publish([]string{"a.md", "b"})
	f.Publish(nil) // dropped
	want := []string{"before1 a.md,b", "before2", "index a.md,b", "cache", "after1"}
	if !slices.Equal(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}
}

func TestPublishCopiesPaths(t *testing.T) {
	var f Feed
	var seen []string
	f.Listen(func(paths []string) { seen = paths })
	in := []string{"a.md"}
	f.Publish(in)
	in[0] = "changed"
	if seen[0] != "a.md" {
		t.Errorf("listener saw the caller's later change: %q", seen)
	}
}

func TestNilFeed(t *testing.T) {
	var f *Feed
	f.Listen(func([]string) { t.Error("called") })
	f.Bracket(func([]string) func() { t.Error("called"); return nil })
	f.Publish([]string{"a.md"})
}

// A panicking listener is logged; the others still run, and Publish
// returns normally to the write that called it.
func TestListenerPanic(t *testing.T) {
	var buf bytes.Buffer
	f := Feed{Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	var ran []string
	f.Bracket(func([]string) func() { return func() { panic("after") } })
	f.Listen(func([]string) { panic("boom") })
	f.Listen(func([]string) { ran = append(ran, "second") })
	f.Publish([]string{"a.md"})
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
	f.Bracket(func(paths []string) func() {
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
			f.Publish([]string{fmt.Sprint(i)})
		}()
	}
	wg.Wait()
	if len(pairs) != 50 {
		t.Errorf("%d batches delivered, want 50", len(pairs))
	}
}
