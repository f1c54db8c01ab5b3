package history

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/gitsync/internal/textmerge"
)

// Blob returns the content git stores under the blob id (a file version
// as vault.Version computes it); found is false when git does not hold
// it, as for a version that was never committed.
func (r *History) Blob(id string) (data []byte, found bool, err error) {
	if len(id) != 40 || !isHex(id) {
		return nil, false, nil
	}
	h := plumbing.NewHash(id)
	r.hist.mu.Lock()
	defer r.hist.mu.Unlock()
	if !r.hist.obj.Has(h) {
		return nil, false, nil
	}
	data, err = r.hist.obj.Blob(h)
	if err != nil {
		if isMissing(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("version %s: %w", short(h), r.scrub(err))
	}
	return data, true, nil
}

// TextDiff is the unified diff of two texts of the file at path, capped
// as Diff caps a file's lines: binary or oversized content gives a patch
// marked Binary with no lines.
func TextDiff(path string, from, to []byte) FilePatch {
	fp := FilePatch{Path: path, Kind: Modified}
	fp.setLines(from, to)
	return fp
}

// setLines fills fp's lines and counts from the two contents, capped as
// every diff is: binary or oversized content marks it Binary instead.
func (fp *FilePatch) setLines(from, to []byte) {
	if textmerge.IsBinary(from) || textmerge.IsBinary(to) || len(from) > maxDiffBytes || len(to) > maxDiffBytes {
		fp.Binary = true
		return
	}
	lines, added, removed := unifiedLines(string(from), string(to), diffContext)
	fp.Added, fp.Removed = added, removed
	if len(lines) > MaxDiffLines {
		fp.Truncated = len(lines) - MaxDiffLines
		lines = lines[:MaxDiffLines]
	}
	fp.Lines = lines
}
