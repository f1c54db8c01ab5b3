package gitsync

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
)

// makeVault writes files notes of about 2 KB in folders of 100 and commits
// them with the git CLI (then packs them, as a clone would be).
func makeVault(b testing.TB, dir string, files int) {
	b.Helper()
	body := strings.Repeat("Some words about the topic, with a [[link]] and a #tag.\n", 36)
	for i := 0; i < files; i++ {
		writeFile(b, dir, noteName(i), fmt.Sprintf("# Note %d\n%s", i, body))
	}
	git(b, dir, "init", "-q", "-b", "main")
	git(b, dir, "config", "gc.auto", "0") // no background gc during a run
	git(b, dir, "add", "-A")
	git(b, dir, "commit", "-q", "-m", "initial")
	git(b, dir, "repack", "-adq")
}

func noteName(i int) string {
	return fmt.Sprintf("area-%02d/folder-%03d/note-%05d.md", i/1000, i/100, i)
}

// durations collects per-operation times to report the median, which is
// what the budget is stated in.
type durations []time.Duration

func (d durations) report(b *testing.B) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, "ms-p90")
}

// BenchmarkRecord measures write → committed on a 10,000-note vault: the
// file is written (as the vault does) and Record commits it, durably
// (fsync) and, for comparison, without flushing. Budget: 10 ms median. BenchmarkRecord/git-cli does the same with `git add && git
// commit` for comparison.
func BenchmarkRecord(b *testing.B) {
	dir := b.TempDir()
	const files = 10000
	makeVault(b, dir, files)
	r, err := Open(context.Background(), Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	seq := 0
	for _, mode := range []struct {
		name    string
		noFsync bool
	}{{"gitsync", false}, {"gitsync-nofsync", true}} {
		b.Run(mode.name, func(b *testing.B) {
			r.opts.NoFsync = mode.noFsync
			var ds durations
			for b.Loop() {
				seq++
				rel := noteName(rng.IntN(files))
				start := time.Now()
				writeFile(b, dir, rel, fmt.Sprintf("edit %d\n", seq))
				if _, err := r.Record(context.Background(), "edit "+rel, []string{rel}); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			ds.report(b)
		})
	}
	b.Run("git-cli", func(b *testing.B) {
		var ds durations
		for b.Loop() {
			seq++
			rel := noteName(rng.IntN(files))
			start := time.Now()
			writeFile(b, dir, rel, fmt.Sprintf("edit %d\n", seq))
			git(b, dir, "add", rel)
			git(b, dir, "commit", "-q", "-m", "edit "+rel)
			ds = append(ds, time.Since(start))
		}
		ds.report(b)
	})
}

// BenchmarkRecent10 measures Recent(10) with diffs on a history of 1,000
// commits (budget 100 ms), with and without a path filter, beside
// `git log -p -10`.
func BenchmarkRecent10(b *testing.B) {
	dir := b.TempDir()
	const files, commits = 1000, 1000
	makeVault(b, dir, files)
	r, err := Open(context.Background(), Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < commits; i++ {
		rel := noteName(rng.IntN(files))
		old := readFile(b, dir, rel)
		writeFile(b, dir, rel, old+fmt.Sprintf("- line %d\n", i))
		if _, err := r.Record(context.Background(), "edit "+rel, []string{rel}); err != nil {
			b.Fatal(err)
		}
	}
	target := noteName(7)
	writeFile(b, dir, target, "touched once, long ago\n")
	if _, err := r.Record(context.Background(), "edit "+target, []string{target}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 200; i++ { // bury it
		rel := noteName(100 + i)
		writeFile(b, dir, rel, fmt.Sprintf("bury %d\n", i))
		r.Record(context.Background(), "edit "+rel, []string{rel})
	}
	run := func(name, path string, fresh bool) {
		b.Run(name, func(b *testing.B) {
			var ds durations
			for b.Loop() {
				if fresh {
					r.hist = newHistory(newStorage(r.gitDir, histCacheSize), r.gitDir)
				}
				start := time.Now()
				got, err := r.Recent(context.Background(), 10, path)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				if path == "" && len(got) != 10 {
					b.Fatalf("%d commits", len(got))
				}
			}
			ds.report(b)
		})
	}
	run("cold", "", true)
	run("warm", "", false)
	run("path-cold", target, true)
	run("path-warm", target, false)
	b.Run("git-log-p", func(b *testing.B) {
		var ds durations
		for b.Loop() {
			start := time.Now()
			git(b, dir, "log", "-p", "-10")
			ds = append(ds, time.Since(start))
		}
		ds.report(b)
	})
	b.Run("git-log-p-path", func(b *testing.B) {
		var ds durations
		for b.Loop() {
			start := time.Now()
			git(b, dir, "log", "-p", "-10", "--", target)
			ds = append(ds, time.Since(start))
		}
		ds.report(b)
	})
}

// BenchmarkExternalScan measures the sync's scan for external changes on a
// 10,000-note vault with nothing changed (the vault lock is held that long
// once per SyncInterval), beside `git status`.
func BenchmarkExternalScan(b *testing.B) {
	dir := b.TempDir()
	makeVault(b, dir, 10000)
	r, err := Open(context.Background(), Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	git(b, dir, "status", "--porcelain") // refresh the index stat data once
	b.Run("gitsync", func(b *testing.B) {
		var ds durations
		for b.Loop() {
			start := time.Now()
			if err := r.Sync(context.Background()); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		ds.report(b)
	})
	b.Run("git-status", func(b *testing.B) {
		var ds durations
		for b.Loop() {
			start := time.Now()
			git(b, dir, "status", "--porcelain")
			ds = append(ds, time.Since(start))
		}
		ds.report(b)
	})
}
