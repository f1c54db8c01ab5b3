package gitsync

import (
	"container/heap"
	"fmt"

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

// forkSlop is how many more commits the ours-only walk reads after every
// open path has become upstream, as git's rev-list does, so that a commit
// with a skewed clock does not end the walk too early.
const forkSlop = 5

// forkNode is a commit in the ours-only walk.
type forkNode struct {
	c        *object.Commit
	upstream bool // reachable from one of the upstream tips
}

type forkQueue []*forkNode

func (q forkQueue) Len() int { return len(q) }
func (q forkQueue) Less(i, j int) bool {
	return q[i].c.Committer.When.After(q[j].c.Committer.When)
}
func (q forkQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *forkQueue) Push(x any)   { *q = append(*q, x.(*forkNode)) }
func (q *forkQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// oursOnly lists the commits reachable from local and from none of the
// upstream tips (`git rev-list local --not upstream...`), parents before
// children. The upstream tips are the remote's head and every head the
// remote-tracking branch had before (its reflog): a commit the remote
// once had is never ours to replay, even when a rewrite of the remote's
// history dropped it since. That is the fork point of `git pull --rebase`.
// Upstream tips whose commits are missing are skipped.
func (r *Repo) oursOnly(local plumbing.Hash, upstream []plumbing.Hash) ([]*object.Commit, error) {
	if local.IsZero() {
		return nil, nil
	}
	nodes := map[plumbing.Hash]*forkNode{}
	q := &forkQueue{}
	markUpstream := func(n *forkNode) {
		stack := []*forkNode{n}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x.upstream {
				continue
			}
			x.upstream = true
			for _, p := range x.c.ParentHashes {
				if pn, ok := nodes[p]; ok && !pn.upstream {
					stack = append(stack, pn)
				}
			}
		}
	}
	add := func(h plumbing.Hash, upstream bool) error {
		if n, ok := nodes[h]; ok {
			if upstream && !n.upstream {
				markUpstream(n)
			}
			return nil
		}
		c, err := r.obj.commit(h)
		if err != nil {
			if upstream {
				return nil // a pruned old remote head: nothing to exclude
			}
			return err
		}
		n := &forkNode{c: c, upstream: upstream}
		nodes[h] = n
		heap.Push(q, n)
		return nil
	}
	if err := add(local, false); err != nil {
		return nil, err
	}
	for _, h := range upstream {
		if !h.IsZero() {
			if err := add(h, true); err != nil {
				return nil, err
			}
		}
	}
	slop := forkSlop
	for steps := 0; q.Len() > 0; steps++ {
		if steps >= walkLimit {
			return nil, fmt.Errorf("finding the fork point: more than %d commits apart", walkLimit)
		}
		n := heap.Pop(q).(*forkNode)
		for _, p := range n.c.ParentHashes {
			if err := add(p, n.upstream); err != nil {
				return nil, err
			}
		}
		allUpstream := true
		for _, x := range *q {
			if !x.upstream {
				allUpstream = false
				break
			}
		}
		if !allUpstream {
			slop = forkSlop
		} else if slop--; slop <= 0 {
			break
		}
	}
	// Parents before children: a depth-first walk from local over the
	// commits that stayed ours, emitting a commit after its parents.
	var out []*object.Commit
	emitted := map[plumbing.Hash]bool{}
	type frame struct {
		n    *forkNode
		next int
	}
	stack := []frame{{n: nodes[local]}}
	if stack[0].n.upstream {
		return nil, nil
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.n.c.ParentHashes) {
			p := f.n.c.ParentHashes[f.next]
			f.next++
			if pn, ok := nodes[p]; ok && !pn.upstream && !emitted[p] {
				emitted[p] = true // claimed: pushed once
				stack = append(stack, frame{n: pn})
			}
			continue
		}
		out = append(out, f.n.c)
		stack = stack[:len(stack)-1]
	}
	return out, nil
}
