package gitsync

import (
	"container/heap"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// walkLimit bounds the commit-graph walks of ahead/behind counting.
const walkLimit = 100000

// compare returns how many commits only a has (ahead) and only b has
// (behind). Both counts come from the painting walk of oursOnly, so
// commits made within the same second (or with a skewed clock) are not
// miscounted the way a plain date-ordered walk miscounts them; past
// walkLimit commits the counts are a lower bound.
func (r *Repo) compare(a, b plumbing.Hash) (ahead, behind int, err error) {
	onlyA, _, err := r.paint(a, []plumbing.Hash{b}, walkLimit)
	if err != nil {
		return 0, 0, err
	}
	onlyB, _, err := r.paint(b, []plumbing.Hash{a}, walkLimit)
	if err != nil {
		return 0, 0, err
	}
	return len(onlyA), len(onlyB), nil
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
	out, truncated, err := r.paint(local, upstream, walkLimit)
	if err == nil && truncated {
		err = fmt.Errorf("finding the fork point: more than %d commits apart", walkLimit)
	}
	return out, err
}

// paint is the walk behind oursOnly and compare: commits reachable from
// local are painted ours, from the upstream tips upstream (which wins, and
// spreads to every known ancestor), newest first, until every open path is
// upstream. truncated says it stopped after limit commits instead.
func (r *Repo) paint(local plumbing.Hash, upstream []plumbing.Hash, limit int) (out []*object.Commit, truncated bool, err error) {
	if local.IsZero() {
		return nil, false, nil
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
		c, err := r.obj.Commit(h)
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
		return nil, false, err
	}
	for _, h := range upstream {
		if !h.IsZero() {
			if err := add(h, true); err != nil {
				return nil, false, err
			}
		}
	}
	// The walk ends when every open path is upstream and no upstream path
	// can still reach a commit painted ours: those paths only hold commits
	// as old as the newest one queued, so once that is older than every
	// commit still painted ours, nothing changes any more (with clocks
	// that run forward; forkSlop more commits cover a little skew). A plain
	// "all open paths upstream" stops too early among commits made within
	// the same second.
	slop := forkSlop
	var ours []*forkNode // popped while painted ours
	for steps := 0; q.Len() > 0; steps++ {
		if steps >= limit {
			truncated = true
			break
		}
		n := heap.Pop(q).(*forkNode)
		if !n.upstream {
			ours = append(ours, n)
		}
		for _, p := range n.c.ParentHashes {
			if err := add(p, n.upstream); err != nil {
				return nil, false, err
			}
		}
		if !settled(*q, &ours) {
			slop = forkSlop
		} else if slop--; slop <= 0 {
			break
		}
	}
	// Parents before children: a depth-first walk from local over the
	// commits that stayed ours, emitting a commit after its parents.
	emitted := map[plumbing.Hash]bool{}
	type frame struct {
		n    *forkNode
		next int
	}
	stack := []frame{{n: nodes[local]}}
	if stack[0].n.upstream {
		return nil, truncated, nil
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
	return out, truncated, nil
}

// settled reports whether the walk can end: every queued commit is
// upstream, and the newest of them is older than every popped commit
// still painted ours (ours is pruned of those painted upstream since).
func settled(q forkQueue, ours *[]*forkNode) bool {
	for _, x := range q {
		if !x.upstream {
			return false
		}
	}
	if len(q) == 0 {
		return true
	}
	kept := (*ours)[:0]
	for _, n := range *ours {
		if !n.upstream {
			kept = append(kept, n)
		}
	}
	*ours = kept
	newest := q[0].c.Committer.When // the heap's top
	for _, n := range kept {
		if !newest.Before(n.c.Committer.When) {
			return false
		}
	}
	return true
}
