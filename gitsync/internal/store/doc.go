// Package store reads and writes a git repository's files the way git
// does, for the commit path and the history of package gitsync: objects
// (loose, and packs for large commits) with a cache of decoded trees, tree
// building and tree diffs, the index file's codec, lock files with owner
// marks that recovery can judge, and the checks every path and tree
// passes before it reaches the worktree. It decides nothing about when
// to commit or sync: that is gitsync's.
package store

import "github.com/go-git/go-git/v5/plumbing"

// short is a hash as abbreviated for people.
func short(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()[:7]
}
