// Package gitsync keeps an Obsidian vault's git repository: every change the
// server makes becomes a commit of just the touched paths, commits are
// pushed in the background, the remote is pulled and our unpushed commits
// replayed on top of it, and history is read back with line diffs. It knows
// nothing of Markdown or MCP: paths are vault-relative, '/'-separated
// strings.
//
// # Lifecycle
//
//	r, err := gitsync.Open(ctx, gitsync.Options{Dir: dir, RemoteURL: url, Locker: vaultLock, Changed: feed.PublishPaths})
//	r.Start(ctx)   // pull now and every SyncInterval, push after commits
//	defer r.Close() // stop, then one last push attempt (bounded: ~20 s at most)
//
// Open recovers what a killed server left (see Recovery), then opens the
// repository, initialises one in a folder that has none (the configured
// branch, else git's init.defaultBranch, else "main"), or clones into an
// empty folder when a remote is set. The branch is the configured one or
// else the one checked out; the remote is the configured URL or else the
// repository's own origin. A configured branch or remote that differs from
// the repository's is an error. Open needs no network: a clone that cannot
// reach the remote starts an empty repository, and the first sync that
// reaches it brings the history in; a clone that works is checked out by
// Open through the same verification and checkout as every pull.
//
// # Committing
//
// A change of the server's own is committed in two phases (the vault's
// changes.Recorder), with the vault's write lock held, after the files
// are written. Prepare hashes only the given paths (taking the bytes the
// vault wrote rather than reading them back), writes their blobs and the
// trees along their paths as loose objects (one pack for a large
// change), writes the commit, takes .git/index.lock and the branch ref's
// <ref>.lock, like git itself, and returns holding them. Unless
// Options.NoFsync, the objects, the folders of the written notes and the
// ref lock are flushed to disk by then (on Linux by one syncfs, see
// package syncfs). The vault then renames its last written note into
// place, and Publish renames the ref into place and flushes the folders
// of both renames, so an acknowledged write survives a power loss; or
// Abort drops the locks, and HEAD and the index are as they were.
//
// The note's own flush goes with the commit's: the vault writes it to a
// temporary file beside the note, unflushed, and keeps the undo (the old
// note's backup); Prepare flushes that file in the same barrier as the
// objects and the ref lock. Two device flushes a write instead of three
// (placing.go). Commit does both phases at once, for a caller that wrote
// the files itself (and the sync's commits of outside edits).
//
// The index is kept in memory between commits, under index.lock, and
// written once commits pause (50 ms, or 500 ms into a burst; see indexwrite.go): a burst of writes pays for one
// 1 MB index, not one each, and a `git commit` run meanwhile stops at the
// lock rather than committing an index without ours. It is not flushed
// (git's own default, core.fsync=committed, does not flush it either): a
// kill or a power loss may leave it behind HEAD or torn, and the next
// start rebuilds it from HEAD when a mark shows a vaultmcp process left
// it so (see Recovery). There is no worktree scan, and the index file is
// re-read only when another git process rewrote it. Writing content
// identical to HEAD makes no commit; Publish then returns HEAD's short
// hash and a nil error (Commit's Result.Created tells the cases apart).
//
// # Sync
//
// Sync (run by the background loop) first commits, with no network
// involved, the files changed outside the server (Obsidian on the same
// disk, or a write of ours a crash stopped before its commit) as "vault:
// sync external changes"; a mass deletion among them is held back until it
// is confirmed (ConfirmDeletion) or the files come back. Then it fetches
// the remote's branch into refs/vaultmcp/fetched/<branch> and integrates
// it with the vault lock held:
//
//   - The remote is not trusted. Every tree that reaches the worktree
//     passes verifyTree, and every path of our own commits checkName (git's
//     verify_path rules, stricter: no ".git" in any case, Unicode or NTFS
//     spelling, no "." or "..", no '/' or NUL in a name). A refused tree
//     stops the pull with an UnsafeTreeError in the log and in
//     Status().LastPullError, and nothing of it is written: not a file, not
//     the branch, not the remote-tracking branch.
//   - Our commits the remote never had are replayed on top of its head:
//     those reachable from HEAD and from neither the remote's head nor any
//     head the remote-tracking branch had (its reflog), the fork point of
//     `git pull --rebase`. A rewrite of the remote's history is followed,
//     never undone: commits it dropped are not pushed again. A merge commit
//     made with the git CLI replays only its own conflict resolutions.
//   - A note changed on both sides is merged line by line (package
//     textmerge); where the same lines collide, or the texts are too big
//     or unreadable for a line merge, the remote's version stays at the
//     path and ours is saved as "name (conflict YYYY-MM-DD HHMM).md",
//     logged and listed in Status().PendingConflicts until the copy is
//     deleted. Only the files
//     that differ are written (never through a symbolic link), and
//     Options.Changed is told about them.
//
// Then the remote-tracking branch moves to the remote's head. Fetch and
// push give up after NetworkTimeout. A push rejected because the remote
// moved on triggers a pull and a second push; a push the remote declined
// (a hook, a protected branch) is reported with the remote's own message
// as a PushDeclinedError and tried again only after several minutes; a
// push stopped by the remote branch's lock file (another push running, or
// one killed mid-update) is a RemoteLockedError naming that file; it and
// other failures are retried with exponential backoff up to five minutes.
// Loose objects are packed now and then (see gc.go). A panic anywhere in
// the loop is logged, turned into an error, and the loop goes on.
//
// # Recovery
//
// A server killed at any point (kill -9, a power loss) leaves a vault the
// next one starts on without help:
//
//   - Lock files: every lock we take (index.lock, <ref>.lock) is a hard
//     link of an owner file .git/vaultmcp-<pid>-<n>.lock-owner that its
//     process holds flock(2)ed. Open removes a lock whose owner nobody
//     holds (where flock is missing: whose pid is not running) and logs
//     it. A lock without an owner file belongs to another program (a `git
//     commit` waiting for its editor): it is never removed, only reported.
//   - Temporary files of atomic writes (".vaultmcp-<pid>-…") are never
//     committed; the first sync removes those whose process is gone.
//   - A file written but not committed, or an index left behind HEAD by a
//     kill between the ref update and the index rename, is committed or
//     re-staged by the first sync's external-changes step, which needs no
//     network.
//   - The index a process left when it stopped without a clean Close
//     (behind HEAD by its last burst of commits, or torn by a power loss)
//     is rebuilt from HEAD by CheckIndex, and staged against the worktree
//     by the first sync, when .git/vaultmcp-<pid>-index.unflushed shows
//     that a vaultmcp process changed it since its last clean stop. Any
//     other index go-git cannot read stops the server with an error that
//     says how to fix it.
//   - Small files in .git (config, the conflict list) are replaced
//     atomically. The one ref go-git writes in place, the fetched copy of
//     the remote's head, is dropped when a kill left it empty, and fetched
//     again.
//
// # History
//
// Log, NoteHistory, ResolveVersion, FileAt, Diff and PlanRevert are
// package history's, answered through the Repo: each commit made here is
// handed to the history with its changes (the onCommit option), and the
// history reads the branch head and its objects, never the Repo itself.
//
// # Concurrency
//
// go-git is not safe for concurrent use, so a Repo keeps three go-git
// storages on the same .git folder, each behind its own mutex: one for
// commits and sync, one for network transfers (a slow push never delays a
// commit) and one for history reads (package history's, behind its own
// lock). Lock order: the vault lock, then the repository lock; the
// network lock is never held while waiting for either of the others
// except for the brief ref reads of a push. The history's lock is taken
// alone: a query reads the head (under the repository lock) before it,
// and a commit hands its commit over, under the repository lock, through
// a lock of the history's that queries hold only briefly.
//
// # Packages
//
// gitsync keeps the Repo: its lifecycle, the commit path, sync, push and
// gc. Package history reviews the history; gitsync/internal/store reads
// and writes the repository's files (objects, packs, the index codec,
// refs, lock files, tree checks); gitsync/internal/textmerge merges texts
// line by line.
package gitsync
