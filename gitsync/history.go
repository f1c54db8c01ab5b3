package gitsync

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/gitsync/history"
)

// The history review is package history's; Repo answers for it, so
// callers need only the Repo. The names below are history's, kept here.

type (
	// ChangeKind is what a commit did to a file (history.ChangeKind).
	ChangeKind = history.ChangeKind
	// Commit is one commit of the history (history.Commit).
	Commit = history.Commit
	// FileChange is one file a commit changed (history.FileChange).
	FileChange = history.FileChange
	// LogOptions select commits for Log (history.LogOptions).
	LogOptions = history.LogOptions
	// Log is a page of the history (history.Log).
	Log = history.Log
	// DiffOptions name what Diff compares (history.DiffOptions).
	DiffOptions = history.DiffOptions
	// Diff is what changed between two versions (history.Diff).
	Diff = history.Diff
	// FilePatch is one file's diff (history.FilePatch).
	FilePatch = history.FilePatch
	// NoteHistoryOptions select a note's versions (history.NoteHistoryOptions).
	NoteHistoryOptions = history.NoteHistoryOptions
	// NoteHistory is a page of a note's versions (history.NoteHistory).
	NoteHistory = history.NoteHistory
	// NoteVersion is one version of a note (history.NoteVersion).
	NoteVersion = history.NoteVersion
	// Rename is where a path went (history.Rename).
	Rename = history.Rename
	// RevertOptions name the change to undo (history.RevertOptions).
	RevertOptions = history.RevertOptions
	// CurrentFunc reads a file as it is now (history.CurrentFunc).
	CurrentFunc = history.CurrentFunc
	// RevertPlan is what undoing a change writes (history.RevertPlan).
	RevertPlan = history.RevertPlan
	// RevertFile is one file of a RevertPlan (history.RevertFile).
	RevertFile = history.RevertFile
	// RevertConflict is a file a revert cannot undo (history.RevertConflict).
	RevertConflict = history.RevertConflict
	// ConflictRegion is lines a later change touched (history.ConflictRegion).
	ConflictRegion = history.ConflictRegion
	// Version is a resolved version spec (history.Version).
	Version = history.Version
	// FileVersion is a file as a version holds it (history.FileVersion).
	FileVersion = history.FileVersion
)

// The kinds of file change (history.Added and the others).
const (
	Added    = history.Added
	Modified = history.Modified
	Deleted  = history.Deleted
	Renamed  = history.Renamed
)

// Limits of the history queries (see package history).
const (
	MaxDiffLines        = history.MaxDiffLines
	DefaultRecent       = history.DefaultRecent
	MaxLineBytes        = history.MaxLineBytes
	DefaultDiffFiles    = history.DefaultDiffFiles
	MaxDiffFiles        = history.MaxDiffFiles
	DefaultHistoryLimit = history.DefaultHistoryLimit
	MaxHistoryLimit     = history.MaxHistoryLimit
)

// Errors of ResolveVersion and FileAt (see package history).
var (
	ErrNoVersion    = history.ErrNoVersion
	ErrNotInVersion = history.ErrNotInVersion
)

// TextDiff is history.TextDiff: the diff of two texts, as Diff renders it.
func TextDiff(path string, from, to []byte) FilePatch { return history.TextDiff(path, from, to) }

// historySource is what the history reads of the Repo: the branch head,
// and the scrubbing of errors.
type historySource struct{ r *Repo }

// Head returns the branch head, under the repository lock.
func (s historySource) Head() (plumbing.Hash, error) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.r.refHash(s.r.branch)
}

// Scrub takes the remote's secrets out of err.
func (s historySource) Scrub(err error) error { return s.r.scrub(err) }

// Recent is history.History.Recent.
func (r *Repo) Recent(ctx context.Context, n int, path string) ([]Commit, error) {
	return r.hist.Recent(ctx, n, path)
}

// Log is history.History.Log.
func (r *Repo) Log(ctx context.Context, opts LogOptions) (Log, error) { return r.hist.Log(ctx, opts) }

// Diff is history.History.Diff.
func (r *Repo) Diff(ctx context.Context, opts DiffOptions) (Diff, error) {
	return r.hist.Diff(ctx, opts)
}

// NoteHistory is history.History.NoteHistory.
func (r *Repo) NoteHistory(ctx context.Context, opts NoteHistoryOptions) (NoteHistory, error) {
	return r.hist.NoteHistory(ctx, opts)
}

// RenamedTo is history.History.RenamedTo.
func (r *Repo) RenamedTo(ctx context.Context, path string) (Rename, bool) {
	return r.hist.RenamedTo(ctx, path)
}

// InHistory is history.History.InHistory.
func (r *Repo) InHistory(ctx context.Context, path string) (file, dir bool, err error) {
	return r.hist.InHistory(ctx, path)
}

// HistoryPaths is history.History.HistoryPaths.
func (r *Repo) HistoryPaths(ctx context.Context, fn func(path string, dir bool) bool) error {
	return r.hist.HistoryPaths(ctx, fn)
}

// PlanRevert is history.History.PlanRevert.
func (r *Repo) PlanRevert(ctx context.Context, opts RevertOptions, current CurrentFunc) (RevertPlan, error) {
	return r.hist.PlanRevert(ctx, opts, current)
}

// ResolveVersion is history.History.ResolveVersion.
func (r *Repo) ResolveVersion(ctx context.Context, spec string) (Version, error) {
	return r.hist.ResolveVersion(ctx, spec)
}

// FileAt is history.History.FileAt.
func (r *Repo) FileAt(ctx context.Context, spec, path string, maxBytes int64) (FileVersion, error) {
	return r.hist.FileAt(ctx, spec, path, maxBytes)
}

// Blob is history.History.Blob.
func (r *Repo) Blob(id string) (data []byte, found bool, err error) { return r.hist.Blob(id) }
