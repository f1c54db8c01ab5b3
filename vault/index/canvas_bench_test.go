package index

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
)

// BenchmarkRenamePopularCanvases renames the popular note of a varied
// 10,000-note vault (1,800 notes link to it) back and forth, relinking
// as rename_file does, without canvases and with 100 canvases of 200
// cards each, 20 of which show the note as a file card and link it from
// a text card. rel-ms/op is one rename's relinking with the move (git's
// commit, the same either way, is left out); the budget for the whole
// rename is one second.
func BenchmarkRenamePopularCanvases(b *testing.B) {
	for _, boards := range []int{0, 100} {
		b.Run(fmt.Sprintf("canvases=%d", boards), func(b *testing.B) {
			dir := b.TempDir()
			gen, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1, Varied: true, HubLinks: 1800})
			if err != nil {
				b.Fatal(err)
			}
			hub := gen.Path(vaultgen.HubNote)
			if err := vaultgen.WriteCanvases(dir, gen.Paths, hub, boards); err != nil {
				b.Fatal(err)
			}
			v, err := vault.Open(dir, vault.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ix := New(v, slog.New(slog.DiscardHandler))
			if err := ix.Build(ctx); err != nil {
				b.Fatal(err)
			}
			v.Observe(ix.Changed)
			from := hub
			var canvasLinks int
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				to := strings.TrimSuffix(hub, ".md") + fmt.Sprintf(" %d.md", i%2)
				if i%2 == 1 {
					to = hub
				}
				var r Relinked
				_, err := v.RenameFile(ctx, from, to, func(tx *vault.Tx, f, t vault.Path) (err error) {
					r, err = ix.FollowRenameAll(ctx, tx, f.Rel, t.Rel)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				if r.Notes < 1800 || boards > 0 && r.Canvases != boards/5 {
					b.Fatalf("relinked %+v", r)
				}
				canvasLinks = r.CanvasLinks
				from = to
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "rel-ms/op")
			b.ReportMetric(float64(canvasLinks), "canvas-links")
		})
	}
}

// BenchmarkCanvasRelinkWork is the canvas share of such a rename:
// planning the rewrites of the 20 canvases showing the popular note
// among 100 (reading, parsing and splicing them), and refreshing those
// 20 from disk, as an outside edit of them is (a rename's own refresh
// takes them parsed beside its commit instead).
func BenchmarkCanvasRelinkWork(b *testing.B) {
	dir := b.TempDir()
	gen, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10000, Seed: 1, Varied: true, HubLinks: 1800})
	if err != nil {
		b.Fatal(err)
	}
	hub := gen.Path(vaultgen.HubNote)
	var shown []string
	for i := range 100 {
		rel := fmt.Sprintf("board %03d.canvas", i)
		if err := os.WriteFile(filepath.Join(dir, rel), vaultgen.Canvas(gen.Paths, i, hub, i%5 == 0), 0o644); err != nil {
			b.Fatal(err)
		}
		if i%5 == 0 {
			shown = append(shown, rel)
		}
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix := New(v, slog.New(slog.DiscardHandler))
	if err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	to := strings.TrimSuffix(hub, ".md") + " moved.md"
	b.Run("plan", func(b *testing.B) {
		for b.Loop() {
			rw, _, err := ix.PlanCanvasRename(ctx, hub, to)
			if err != nil || len(rw) != 20 {
				b.Fatalf("%d rewrites, %v", len(rw), err)
			}
		}
	})
	b.Run("refresh", func(b *testing.B) {
		for b.Loop() {
			ix.Refresh(shown)
		}
	})
}
