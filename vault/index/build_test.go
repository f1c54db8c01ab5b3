package index

import (
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"vaultmcp/internal/vaultgen"
	"vaultmcp/vault"
)

// TestParallelFoldMatchesSequential builds varied vaults, with the
// corner cases of link counting added (self-links, repeated links,
// targets and buckets with more sources than a slice holds, case twins,
// repeated tags in many spellings, broken and too-large notes), with one
// worker and with several, and compares every table the build fills with
// those of an index filled note by note through addContributions, the
// path a refresh takes.
func TestParallelFoldMatchesSequential(t *testing.T) {
	dir := t.TempDir()
	if _, err := vaultgen.Generate(filepath.Join(dir, "varied"), vaultgen.Options{Notes: 1500, Seed: 3, Varied: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := vaultgen.Generate(filepath.Join(dir, "concepts"), vaultgen.Options{Notes: 400, Seed: 4, Concepts: 80}); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for i := range 40 {
		tags = append(tags, fmt.Sprintf("#t%d #T%d #t%d/sub", i%7, i%5, i%3))
	}
	writeFile(t, dir, "many-tags.md", strings.Join(tags, " ")+"\n")
	writeFile(t, dir, "few-tags.md", "#a #A #b #a #é #É\n")
	writeFile(t, dir, "Hub.md", "[[Hub]] [[#Top]] [[Hub#x]] self\n")
	writeFile(t, dir, "Twin.md", "[[twin]]\n")
	writeFile(t, dir, "twin.md", "[[Twin]] [[TWIN]]\n")
	writeFile(t, dir, "big.md", strings.Repeat("[[Hub]] ", 2000))
	writeFile(t, dir, "Edge.md", "")
	writeFile(t, dir, "Edge2.md", "")
	writeFile(t, dir, "bad.md", "---\n: [\n---\n[[Hub]]\n")
	for i := range 3 * maxFewSources {
		// Hub gets many sources, some of them linking several times;
		// the bucket "gone" gathers many broken links.
		// Edge has one source more than a slice holds, Edge2 as many.
		text := strings.Repeat("[[Hub]] [[gone]] ", i%3+1) + fmt.Sprintf("[[s%03d]] [[spoke/s%03d]]\n", (i+1)%(3*maxFewSources), i)
		if i <= maxFewSources {
			text += "[[Edge]]\n"
		}
		if i < maxFewSources {
			text += "[[edge2]]\n"
		}
		writeFile(t, dir, fmt.Sprintf("spoke/s%03d.md", i), text)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 3} {
		t.Run(fmt.Sprint(procs, " workers"), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			ix := New(v, slog.New(slog.DiscardHandler))
			ix.SetMaxNoteBytes(10000) // big.md is indexed by name only
			if err := ix.Build(ctx); err != nil {
				t.Fatal(err)
			}
			seq := sequentialBuild(t, v, ix)
			got, want := tablesOf(t, ix), tablesOf(t, seq)
			if len(want) < 2000 {
				t.Fatalf("only %d entries compared", len(want))
			}
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if got[k] != want[k] {
					t.Errorf("%s:\n  parallel   %s\n  sequential %s", k, got[k], want[k])
				}
			}
			for _, k := range slices.Sorted(maps.Keys(got)) {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: only in the parallel build: %s", k, got[k])
				}
			}
			if !reflect.DeepEqual(graphOf(t, ix), graphOf(t, seq)) {
				t.Error("concept graphs differ")
			}
		})
	}
}

// sequentialBuild indexes the files ix holds as a refresh would, one note
// at a time in path order, from its own reading of the disk.
func sequentialBuild(t *testing.T, v *vault.Vault, ix *Index) *Index {
	t.Helper()
	seq := New(v, slog.New(slog.DiscardHandler))
	seq.maxNote = ix.maxNote
	rels := slices.Sorted(maps.Keys(ix.files))
	for _, rel := range rels {
		seq.files[rel] = struct{}{}
		seq.countBelow(rel, 1)
		seq.names.add(rel)
		if !isNote(rel) {
			continue
		}
		p, err := v.Resolve(rel)
		if err != nil {
			t.Fatal(err)
		}
		if n := seq.loadAt(rel, p.Abs, nil); n != nil {
			seq.notes[rel] = n
		}
	}
	for _, rel := range rels {
		if n := seq.notes[rel]; n != nil {
			seq.addContributions(n)
		}
	}
	seq.readyOnce.Do(func() { close(seq.ready) })
	return seq
}

// tablesOf describes every table a build fills, one entry per key, in a
// form that does not depend on the order in which sources were added.
func tablesOf(t *testing.T, ix *Index) map[string]string {
	t.Helper()
	out := map[string]string{}
	set := func(s *sourceSet) string {
		shape := "few"
		if s.many != nil {
			shape = "many"
			if s.few != nil {
				shape = "both"
			}
		}
		m := maps.Collect(s.all())
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d:", shape, s.len())
		for _, src := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(&b, " %s×%d", src, m[src])
		}
		return b.String()
	}
	for k, s := range ix.backlinks {
		out["backlinks "+k] = set(s)
	}
	for k, b := range ix.linkers {
		out["linkers "+k] = fmt.Sprintf("key=%q %s", b.key, set(&b.sourceSet))
	}
	for k, st := range ix.tags {
		out["tag "+k] = fmt.Sprintf("count=%d notes=%d spellings=%v", st.count, st.notes, st.spellings)
	}
	for rel, n := range ix.notes {
		var b strings.Builder
		fmt.Fprintf(&b, "tooLarge=%v bad=%v out=%q", n.tooLarge, n.badFrontmatter, n.out)
		for _, l := range n.doc.links {
			fmt.Fprintf(&b, " [%q %q %q %d]", l.raw, l.target, l.bucket, l.line)
			// Links share their bucket's one copy of its key.
			if l.target != "" && unsafe.StringData(l.bucket) != unsafe.StringData(ix.linkers[l.bucket].key) {
				fmt.Fprintf(&b, " (own copy of %q)", l.bucket)
			}
		}
		out["note "+rel] = b.String()
	}
	for rel := range ix.files {
		out["file "+rel] = ""
	}
	for dir, n := range ix.below {
		out["below "+dir] = fmt.Sprint(n)
	}
	out["<counts>"] = fmt.Sprintf("notes=%d files=%d broken=%d badFM=%d gen=%d byPath=%d byBase=%d",
		len(ix.notes), len(ix.files), ix.broken, ix.badFM, ix.gen, len(ix.names.byPath), len(ix.names.byBase))
	for k, list := range ix.names.byBase {
		out["byBase "+k] = fmt.Sprint(list)
	}
	return out
}
