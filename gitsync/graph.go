package gitsync

import (
	"container/heap"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// walkLimit bounds the commit-graph walks of ahead/behind counting.
const walkLimit = 100000

// graphItem is a commit in the walk queue with the sides it is reachable
// from (1 = a, 2 = b).
type graphItem struct {
	c     *object.Commit
	flags uint8
}

type graphQueue []*graphItem

func (q graphQueue) Len() int { return len(q) }
func (q graphQueue) Less(i, j int) bool {
	return q[i].c.Committer.When.After(q[j].c.Committer.When)
}
func (q graphQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *graphQueue) Push(x any)   { *q = append(*q, x.(*graphItem)) }
func (q *graphQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// compare walks the history of a and b newest first, the way git finds
// merge bases: it returns how many commits only a has (ahead), only b has
// (behind), and the newest commit both have (zero when unrelated). The walk
// stops as soon as every open path is common to both, so two branches a few
// commits apart cost a few commit reads, whatever the history length.
func (r *Repo) compare(a, b plumbing.Hash) (ahead, behind int, base plumbing.Hash, err error) {
	flags := map[plumbing.Hash]uint8{}
	items := map[plumbing.Hash]*graphItem{}
	q := &graphQueue{}
	add := func(h plumbing.Hash, f uint8) error {
		if it, ok := items[h]; ok {
			it.flags |= f
			flags[h] |= f
			return nil
		}
		if flags[h]&f == f {
			return nil
		}
		c, err := r.obj.commit(h)
		if err != nil {
			return err
		}
		flags[h] |= f
		it := &graphItem{c: c, flags: flags[h]}
		items[h] = it
		heap.Push(q, it)
		return nil
	}
	if !a.IsZero() {
		if err := add(a, 1); err != nil {
			return 0, 0, plumbing.ZeroHash, err
		}
	}
	if !b.IsZero() {
		if err := add(b, 2); err != nil {
			return 0, 0, plumbing.ZeroHash, err
		}
	}
	for steps := 0; q.Len() > 0 && steps < walkLimit; steps++ {
		// Stop when only common commits remain.
		open := false
		for _, it := range *q {
			if it.flags != 3 {
				open = true
				break
			}
		}
		if !open {
			break
		}
		it := heap.Pop(q).(*graphItem)
		delete(items, it.c.Hash)
		switch it.flags {
		case 1:
			ahead++
		case 2:
			behind++
		case 3:
			if base.IsZero() {
				base = it.c.Hash
			}
		}
		for _, p := range it.c.ParentHashes {
			if err := add(p, it.flags); err != nil {
				return 0, 0, plumbing.ZeroHash, err
			}
		}
	}
	if base.IsZero() && q.Len() > 0 && (*q)[0].flags == 3 {
		// The walk stopped before popping a common commit: the newest one
		// queued (the heap's top) is the merge base.
		base = (*q)[0].c.Hash
	}
	return ahead, behind, base, nil
}
