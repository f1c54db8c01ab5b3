package index

import (
	"context"

	"vaultmcp/vault/access"
)

// Every query that takes a context answers under the access scope it
// carries (package access): notes the scope hides are left out of lists
// and counts, a hidden note is not found by path or name, and a link to
// a hidden note reads as unresolved. The index itself holds the whole
// vault; only its answers are narrowed.

// scopeOf returns ctx's scope, bound through the index's symbolic links
// (see Index.Scope), and whether it hides anything; queries skip all
// filtering when it does not.
func (ix *Index) scopeOf(ctx context.Context) (*access.Scope, bool) {
	s := ix.Scope(ctx)
	return s, s.Hides()
}

// visibleTags counts the tags of the notes s lets the caller see, as
// ix.tags counts them over every note. Caller holds mu.
func (ix *Index) visibleTags(s *access.Scope) map[string]*tagStat {
	stats := map[string]*tagStat{}
	for rel, n := range ix.notes {
		if !s.Visible(rel) {
			continue
		}
		seen := map[string]bool{}
		for j, t := range n.doc.tags {
			k := n.doc.tagKeys[j]
			st := stats[k]
			if st == nil {
				st = &tagStat{spellings: map[string]int{}}
				stats[k] = st
			}
			st.count++
			st.spellings[t]++
			if !seen[k] {
				seen[k] = true
				st.notes++
			}
		}
	}
	return stats
}
