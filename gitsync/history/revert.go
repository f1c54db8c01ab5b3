package history

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/gitsync/internal/textmerge"
)

// RevertOptions name the change to undo.
type RevertOptions struct {
	// Commit is a version spec (see ResolveVersion) naming the commit.
	Commit string
	// Path limits the revert to one note: its path in that commit (either
	// side of a rename), or its current name when it was renamed since.
	Path string
}

// CurrentFunc reads a vault file as it is now; ok is false when nothing
// is there. The caller reads through its own boundary checks and holds
// its write lock, so the plan is made against what will be overwritten.
type CurrentFunc func(path string) (content []byte, ok bool, err error)

// RevertPlan is what undoing a commit takes, computed against the files
// as they are now. Nothing is written by PlanRevert: the caller applies
// Files through its normal write path when Conflicts is empty.
type RevertPlan struct {
	Commit Version
	// Summary is the history message of the revert, "revert <short>:
	// <first line of the original message>".
	Summary string
	Files   []RevertFile
	// Conflicts are files where a later change collides with the undo.
	Conflicts []RevertConflict
	// Unchanged lists files that are already as the revert would leave
	// them.
	Unchanged []string
}

// RevertFile is one file operation of a revert.
type RevertFile struct {
	// Path is where the result goes.
	Path string
	// MoveFrom is set when the file is moved back to Path first (undoing a
	// rename).
	MoveFrom string
	// Delete removes Path (undoing its creation); otherwise Content is
	// written there.
	Delete  bool
	Content []byte
	// What says what the operation undoes, for the answer.
	What string
}

// RevertConflict says why one file cannot be reverted.
type RevertConflict struct {
	Path   string
	Reason string
	// Regions are the colliding lines, when the file's text was merged.
	Regions []ConflictRegion
}

// ConflictRegion is a run of lines that the commit changed and a later
// change changed again.
type ConflictRegion struct {
	// Line is the first line of the region in the file as it is now
	// (1-based).
	Line int
	// Commit is what the commit left there, Now what is there now, Before
	// what the revert would put back.
	Commit, Now, Before []string
}

// PlanRevert works out how to undo one commit (or only its effect on one
// note) on top of the files as they are now: each file the commit changed
// is three-way merged, with the commit's version as the base, the current
// file as ours and the version before the commit as theirs, so later
// changes elsewhere in the file stay. A later change to the same lines is
// a conflict. Merge commits are refused.
func (r *History) PlanRevert(ctx context.Context, opts RevertOptions, current CurrentFunc) (RevertPlan, error) {
	var plan RevertPlan
	onlyPath := ""
	if opts.Path != "" {
		p, err := store.CleanPath(opts.Path)
		if err != nil {
			return RevertPlan{}, err
		}
		onlyPath = p
	}
	err := r.withLineage(ctx, func(h *history, l *lineage) error {
		q, err := h.resolve(l, opts.Commit)
		if err != nil {
			return err
		}
		m := l.order[q]
		plan.Commit = versionOf(ctx, h, l, q, opts.Commit)
		plan.Summary = fmt.Sprintf("revert %s: %s", short(m.hash), firstLine(m.message))
		if len(m.parents) > 1 {
			return fmt.Errorf("commit %s is a merge; revert the commits it brought in one by one instead", short(m.hash))
		}
		all := h.changes(m)
		if m.changesErr != nil {
			return fmt.Errorf("commit %s: %s", short(m.hash), unreadable("files not readable", m.changesErr))
		}
		parentTree := store.EmptyTree
		if len(m.parents) > 0 {
			pm, err := h.commit(m.parents[0])
			if err != nil {
				return fmt.Errorf("commit %s: %s", short(m.hash), unreadable("parent commit not readable", err))
			}
			parentTree = pm.tree
		}
		pairs, _ := h.pairRenames(m, parentTree, all)
		changes := mergeRenames(all, pairs)
		type target struct {
			d   store.FileDiff
			cur string // where the file's current content is
		}
		var targets []target
		for _, d := range changes {
			if onlyPath == "" || d.Path == onlyPath || d.From.Path == onlyPath {
				cur := d.Path
				if !d.To.Hash.IsZero() {
					cur = h.forward(l, d.Path, q) // renamed since?
				}
				targets = append(targets, target{d, cur})
			}
		}
		if onlyPath != "" && len(targets) == 0 {
			// The note may have been renamed since: follow it back.
			for _, st := range h.follow(l, onlyPath, l.top()) {
				if st.pos == q {
					d := st.d
					if st.oldPath != "" {
						d.From.Path = st.oldPath
					}
					targets = append(targets, target{d, onlyPath})
					break
				}
			}
			if len(targets) == 0 {
				return fmt.Errorf("commit %s did not change %s; get_note_history lists the commits that did", short(m.hash), opts.Path)
			}
		}
		for _, t := range targets {
			if err := h.planFile(&plan, t.d, t.cur, current); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return RevertPlan{}, r.scrub(err)
	}
	return plan, nil
}

// forward returns where the file at path after position q is now: later
// renames are followed (our "rename a -> b" commits and git's rename
// detection). A file deleted since keeps its path.
func (h *history) forward(l *lineage, path string, q int32) string {
	for {
		ps := l.byPath[path]
		i := sort.Search(len(ps), func(i int) bool { return ps[i] > q })
		moved := false
		for ; i < len(ps) && !moved; i++ {
			p := ps[i]
			m := l.order[p]
			d, ok := h.change(m, path)
			if !ok || !d.To.Hash.IsZero() {
				continue
			}
			for _, a := range h.changes(m) {
				if a.From.Hash.IsZero() && !a.To.Hash.IsZero() && h.renameFrom(m, a.Path).from == path {
					path, q, moved = a.Path, p, true
					break
				}
			}
			if !moved {
				return path // deleted for good
			}
		}
		if !moved {
			return path
		}
	}
}

// planFile adds the undo of one file change d to plan; cur is where the
// file is now (d.Path unless it was renamed since).
func (h *history) planFile(plan *RevertPlan, d store.FileDiff, cur string, current CurrentFunc) error {
	short := plan.Commit.Hash
	if d.From.Mode == filemode.Symlink || d.To.Mode == filemode.Symlink || d.From.Mode == filemode.Submodule || d.To.Mode == filemode.Submodule {
		plan.Conflicts = append(plan.Conflicts, RevertConflict{Path: d.Path, Reason: "a symbolic link or submodule; this tool reverts files only"})
		return nil
	}
	before, after, err := h.blobPair(d.From.Hash, d.To.Hash)
	if err != nil {
		return fmt.Errorf("%s: %s", d.Path, unreadable("content to restore not readable", err))
	}
	now, exists, err := current(cur)
	if err != nil {
		return err
	}
	conflict := func(reason string, regions []ConflictRegion) {
		plan.Conflicts = append(plan.Conflicts, RevertConflict{Path: cur, Reason: reason, Regions: regions})
	}
	switch {
	case d.From.Hash.IsZero(): // the commit created the file: delete it
		switch {
		case !exists:
			plan.Unchanged = append(plan.Unchanged, cur)
		case bytes.Equal(now, after):
			plan.Files = append(plan.Files, RevertFile{Path: cur, Delete: true, What: "created by " + short + ": deleted"})
		default:
			conflict("changed since "+short+" created it; deleting it would lose the later changes", changedRegions(after, now))
		}
		return nil
	case d.To.Hash.IsZero(): // the commit deleted the file: restore it
		origin := d.From.Path
		if origin == "" {
			origin = d.Path
		}
		switch {
		case !exists:
			plan.Files = append(plan.Files, RevertFile{Path: origin, Content: before, What: "deleted by " + short + ": restored"})
		case bytes.Equal(now, before):
			plan.Unchanged = append(plan.Unchanged, origin)
		default:
			conflict("deleted by "+short+", but a different file exists at that path now", nil)
		}
		return nil
	}
	if !exists {
		conflict("changed by "+short+", but it has been deleted or moved since", nil)
		return nil
	}
	// The commit changed (and maybe moved) the file.
	target, moveFrom := cur, ""
	what := "edits of " + short + " undone"
	if d.From.Path != "" && d.From.Path != d.Path && cur == d.Path {
		if _, taken, err := current(d.From.Path); err != nil {
			return err
		} else if taken {
			conflict(fmt.Sprintf("moved here from %s by %s, but a file exists at %s again", d.From.Path, short, d.From.Path), nil)
			return nil
		}
		target, moveFrom = d.From.Path, cur
		what = "moved back from " + cur
		if !bytes.Equal(before, after) {
			what += ", edits of " + short + " undone"
		}
	}
	var result []byte
	switch {
	case bytes.Equal(now, after):
		result = before
	case bytes.Equal(now, before):
		result = now
	case textmerge.IsBinary(before) || textmerge.IsBinary(after) || textmerge.IsBinary(now):
		conflict("a binary file changed again since "+short, nil)
		return nil
	case len(before) > maxDiffBytes || len(after) > maxDiffBytes || len(now) > maxDiffBytes:
		conflict("changed again since "+short+" and too large to merge line by line", nil)
		return nil
	default:
		merged, merging := textmerge.MergeRegions(string(after), string(now), string(before))
		regions := make([]ConflictRegion, len(merging))
		for i, c := range merging {
			regions[i] = ConflictRegion{Line: c.Line, Commit: c.Base, Now: c.Ours, Before: c.Theirs}
		}
		if len(regions) > 0 {
			conflict("a later change touches the same lines", regions)
			return nil
		}
		result = []byte(merged)
	}
	if moveFrom == "" && bytes.Equal(result, now) {
		plan.Unchanged = append(plan.Unchanged, cur)
		return nil
	}
	plan.Files = append(plan.Files, RevertFile{Path: target, MoveFrom: moveFrom, Content: result, What: what})
	return nil
}

// changedRegions lists where now differs from base, as conflict regions
// with nothing to put back.
func changedRegions(base, now []byte) []ConflictRegion {
	if textmerge.IsBinary(base) || textmerge.IsBinary(now) || len(base) > maxDiffBytes || len(now) > maxDiffBytes {
		return nil
	}
	b := textmerge.SplitLines(string(base))
	var out []ConflictRegion
	shift := 0
	for _, hk := range textmerge.Hunks(string(base), string(now)) {
		out = append(out, ConflictRegion{
			Line:   hk.Start + shift + 1,
			Commit: textmerge.TrimLines(b[hk.Start:hk.End]),
			Now:    textmerge.TrimLines(hk.Lines),
		})
		shift += len(hk.Lines) - (hk.End - hk.Start)
	}
	return out
}
