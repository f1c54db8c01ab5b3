// Package gitsync keeps an Obsidian vault's git repository: every change the
// server makes becomes a commit of just the touched paths, commits are
// pushed in the background, the remote is pulled and our unpushed commits
// replayed on top of it, and history is read back with line diffs. It knows
// nothing of Markdown or MCP: paths are vault-relative, '/'-separated
// strings.
//
// # Lifecycle
//
//	r, err := gitsync.Open(ctx, gitsync.Options{Dir: dir, RemoteURL: url, Locker: vaultLock, Changed: index.Refresh})
//	r.Start(ctx)   // pull now and every SyncInterval, push after commits
//	defer r.Close() // stop, then one last push attempt (10 s at most)
//
// Open initialises a repository in a folder that has none (branch "main"
// unless configured), clones into an empty folder when a remote is set, and
// adopts the remote already configured in .git/config when none is given.
//
// # Committing
//
// Record (the vault's Recorder) is called with the vault's write lock held,
// after the files are written. It hashes only the given paths, writes their
// blobs and the trees along their paths as loose objects, writes the
// commit, then updates .git/index through index.lock and the branch ref
// through <ref>.lock, like git itself; any failure leaves HEAD and the index
// as they were. There is no worktree scan: the in-memory index is reused
// between commits and re-read only when another git process rewrote it.
// Writing content identical to HEAD makes no commit; Record then returns
// HEAD's short hash and a nil error (Commit's Result.Created tells the
// cases apart).
//
// # Sync
//
// Sync (run by the background loop) fetches, then with the vault lock held
// commits files changed outside the server as "vault: sync external
// changes", and integrates the remote: a fast-forward, or a replay of our
// unpushed commits on top of the remote head (never a merge commit, never a
// force push). A note changed on both sides is merged line by line
// (merge3); where the same lines collide the remote's version stays at the
// path and ours is saved as "name (conflict YYYY-MM-DD HHMM).md", logged
// and listed in Status().PendingConflicts until the copy is deleted. Only
// the files that differ are written, and Options.Changed is told about
// them. A push the remote rejects triggers a pull and a second push; other
// failures are retried with exponential backoff up to five minutes.
//
// # History
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
// # Concurrency
//
// go-git is not safe for concurrent use, so a Repo keeps three go-git
// storages on the same .git folder, each behind its own mutex: one for
// commits and sync, one for network transfers (a slow push never delays a
// commit) and one for history reads. Lock order: the vault lock, then the
// repository lock; the network lock is never held while waiting for either
// of the others except for the brief ref reads of a push.
package gitsync
