package index

import (
	"fmt"
	"testing"
)

// BenchmarkRefreshGonePath times the part of a rename's refresh that
// used to grow with the vault: forgetting the note's old path, and the
// resources' look (Files) at what is left there, in an index of 10,000
// and 100,000 files. Neither should depend on the vault's size.
func BenchmarkRefreshGonePath(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			_, ix := newVault(b, map[string]string{"A.md": ""})
			// The files are only named: a refresh of a path that is gone
			// reads none of them.
			ix.mu.Lock()
			for i := range n {
				ix.putName(fmt.Sprintf("f%02d/g%d/Note %06d.md", i%50, i%7, i))
			}
			ix.mu.Unlock()
			for b.Loop() {
				ix.Refresh([]string{"f01/g1/Old.md"})
				ix.Files("f01/g1/Old.md", func(string) bool { return true })
			}
		})
	}
}
