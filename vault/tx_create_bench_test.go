//go:build unix

package vault

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// BenchmarkWriteFilesSpread writes a rename's batch, 1,800 notes of 3 KB
// in 420 folders, with one creator and with two, alternating so that
// both see the same load, and reports the median of each (ms-1, ms-2)
// and the process's CPU time per batch (cpu-ms-1, cpu-ms-2). Nothing is
// recorded; the backups are removed between batches.
func BenchmarkWriteFilesSpread(b *testing.B) {
	v, root := newTestVault(b, Options{})
	const notes, folders = 1800, 420
	var rels []string
	for i := range notes {
		rel := fmt.Sprintf("folder %03d/note %04d.md", i%folders, i)
		mkfile(b, root, rel, strings.Repeat("old text ", 340))
		rels = append(rels, rel)
	}
	body := []byte(strings.Repeat("new text ", 340))
	times := map[int][]time.Duration{}
	cpus := map[int][]time.Duration{}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		creators := 1 + i%2
		v.creators = creators
		cpu0 := testutil.CPUTime()
		start := time.Now()
		_, err := v.Update(b.Context(), func(tx *Tx) error {
			batch := make([]FileWrite, 0, len(rels))
			for _, rel := range rels {
				p, err := v.Resolve(rel)
				if err != nil {
					return err
				}
				batch = append(batch, FileWrite{Path: p, Data: body})
			}
			_, err := tx.WriteFiles(batch)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		times[creators] = append(times[creators], time.Since(start))
		cpus[creators] = append(cpus[creators], testutil.CPUTime()-cpu0)
		b.StopTimer()
		if err := v.Close(); err != nil { // the backups' removal
			b.Fatal(err)
		}
		b.StartTimer()
	}
	for _, c := range []int{1, 2} {
		if len(times[c]) == 0 {
			continue
		}
		slices.Sort(times[c])
		slices.Sort(cpus[c])
		b.ReportMetric(float64(times[c][len(times[c])/2].Microseconds())/1000, fmt.Sprintf("ms-%d", c))
		b.ReportMetric(float64(cpus[c][len(cpus[c])/2].Microseconds())/1000, fmt.Sprintf("cpu-ms-%d", c))
	}
}
