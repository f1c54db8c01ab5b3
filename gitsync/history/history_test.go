package history

import (
	"testing"
)

// TestHistoryTreeCacheBound: the history's tree cache is held to its
// smaller bound.
func TestHistoryTreeCacheBound(t *testing.T) {
	t.Parallel()
	if h := newHistory(nil, t.TempDir()); h.obj.TreeCacheBound() != historyTreeCacheEntries {
		t.Errorf("the history's tree cache is bounded by %d entries, want %d", h.obj.TreeCacheBound(), historyTreeCacheEntries)
	}
}
