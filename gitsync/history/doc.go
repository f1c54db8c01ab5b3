// Package history reviews a vault repository's history: the log with
// line diffs, one note's versions across renames, diffs between versions,
// version specs, files as a version holds them, and revert planning.
//
// Log, NoteHistory, ResolveVersion, FileAt, Diff and PlanRevert read the
// branch's history through a cache of commit metadata and changed paths
// and, on top of it, the lineage of the current head: its commits in git
// log order (oldest first, so new commits append) with an index from each
// path to the commits that changed it. A head that only added commits
// (ours, a fast-forward) is appended; any other move (a replay, a rewritten
// remote) rebuilds the lineage from the cache. Renames are followed as
// `git log --follow` does: our "rename a -> b" messages first, then git's
// similarity (go-git's port). PlanRevert only plans: the caller applies the
// plan through the vault's write path. Objects that cannot be read cost
// only what needs them, with a notice.
//
// A History depends on its Source (the branch head) and reads objects
// through a go-git storage of its own on the .git folder, behind its own
// lock: a query never waits for a commit nor delays one. Warm fills the
// caches in the background and follows the branch; HandCommit takes a new
// commit with its changes from the commit path.
//
// Every query answers under the request's access scope (package access):
// hidden files are left out, so are commits that changed only hidden
// files, and a message that goes with or names a hidden file is withheld.
package history
