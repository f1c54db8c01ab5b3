package history

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/sergi/go-diff/diffmatchpatch"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/gitsync/internal/textmerge"
)

// ChangeKind is what a commit did to a file.
type ChangeKind string

// The kinds of file change, as get_recent_changes prints them.
const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified"
	Deleted  ChangeKind = "deleted"
	Renamed  ChangeKind = "renamed"
)

// Limits of Log.
const (
	// MaxDiffLines is the number of diff lines kept per file.
	MaxDiffLines = 80
	// DefaultRecent is the number of commits when n <= 0.
	DefaultRecent = 10
	// maxRecent caps n, whatever the caller asks.
	maxRecent = 1000
	// maxDiffBytes: bigger blobs are listed without a line diff.
	maxDiffBytes = 4 << 20
	// MaxLineBytes caps one diff line: a longer one (a paragraph written
	// as one line) is cut there and ends in "…", so one file's 80 lines
	// cannot take a whole answer.
	MaxLineBytes = 300
)

// Commit is one commit of the history with its file changes.
type Commit struct {
	Hash     string // short
	FullHash string
	Time     time.Time // author time, in the author's time zone
	Author   string
	Email    string
	// Message is the commit message without its trailing newline.
	Message string
	// Merge is true for a commit with several parents; like `git log -p`,
	// no file changes are listed for it. Root is true for a commit without
	// parents (the first of a history).
	Merge, Root bool
	Files       []FileChange
	// FileCount is the number of files the commit changed (as listed, after
	// rename detection and any path filter); Files may hold fewer when the
	// answer's budget ran out.
	FileCount int
	// Notice says why the commit's files could not be listed.
	Notice string
	// Skipped counts the files LogOptions.Skip left out.
	Skipped int
}

// FileChange is one file a commit changed.
type FileChange struct {
	Path string
	// OldPath is the previous path of a renamed file.
	OldPath string
	Kind    ChangeKind
	// Binary files (and text over 4 MiB) get no line diff.
	Binary bool
	// Lines are the removed ("-" prefix) and added ("+" prefix) lines, in
	// order, without their newline; at most MaxDiffLines.
	Lines []string
	// Truncated is how many diff lines were cut after MaxDiffLines, or
	// where the answer's budget ran out (OverBudget).
	Truncated int
	// OverBudget is set when the answer's budget ran out within this
	// file's lines.
	OverBudget bool
	// CountsOnly is set when the file is listed with its line counts but
	// without its lines because the budget for diff lines was spent (as
	// LogOptions.FilesOnly lists every file).
	CountsOnly bool
	// Added and Removed count the lines the change added and removed.
	Added, Removed int
	// Notice says why there is no diff (an unreadable object).
	Notice string
}

// LogOptions select and shape the commits Log returns. The zero value is
// the DefaultRecent newest commits with their diffs.
type LogOptions struct {
	// Count is the number of commits; DefaultRecent when <= 0.
	Count int
	// Offset skips that many matching commits, newest first.
	Offset int
	// Path keeps only the commits that touched this file (or anything
	// under this folder), and only those files in each commit.
	Path string
	// Since keeps only the commits committed at or after it (as `git log
	// --since`, the commit date: when the change entered the history).
	Since time.Time
	// Author keeps only the commits whose author "Name <email>" contains
	// it, ignoring case.
	Author string
	// FilesOnly lists files with their line counts but no diff lines.
	FilesOnly bool
	// MaxBytes is a budget for the text of the whole answer
	// (approximate): three quarters of it for commit headers and diff
	// lines, charged per line (a file's lines stop where it runs out),
	// the last quarter for listing later files with their line counts
	// only (CountsOnly); files past that are counted but not listed.
	// 0 means no budget.
	MaxBytes int
	// Hide leaves matching paths out of every list without a trace
	// (folders clients may not see); Skip leaves them out but counts them
	// in Commit.Skipped (dot-folders a client may still ask for).
	Hide, Skip func(path string) bool
}

// Log is a page of the history.
type Log struct {
	Commits []Commit
	// Total is the number of matching commits in the whole history.
	Total int
	// Offset is the offset this page starts at.
	Offset int
	// Notices explain gaps (a history that stops at an unreadable commit).
	Notices []string
}

// Recent returns the n most recent commits (DefaultRecent when n <= 0),
// newest first, with their file changes and line diffs. A non-empty path
// keeps only the commits that touched that file (or anything under that
// folder) and only those files in each commit, like `git log -p -- path`.
func (r *History) Recent(ctx context.Context, n int, path string) ([]Commit, error) {
	l, err := r.Log(ctx, LogOptions{Count: n, Path: path})
	return l.Commits, err
}

// Log returns a page of the branch's history, newest first, like `git log
// -M -p` with the filters of opts. Renames are detected as git does (an
// exact or ≥ 50% similar pair of a deleted and an added file); an object
// that cannot be read costs that file's diff (with a notice), never the
// whole answer. It answers under ctx's access scope (see scope.go).
func (r *History) Log(ctx context.Context, opts LogOptions) (Log, error) {
	n := opts.Count
	if n <= 0 {
		n = DefaultRecent
	}
	n = min(n, maxRecent)
	if opts.Path != "" {
		p, err := store.CleanPath(opts.Path)
		if err != nil {
			return Log{}, err
		}
		opts.Path = p
	}
	author := strings.ToLower(opts.Author)
	scope := hidingScope(ctx)
	opts.Hide = hideUnder(scope, opts.Hide)
	var out Log
	out.Offset = max(opts.Offset, 0)
	err := r.withLineage(ctx, func(h *history, l *lineage) error {
		out.Notices = endNotices(l)
		match := func(m *commitMeta) bool {
			if h.invisible(scope, m) {
				return false
			}
			if !opts.Since.IsZero() && m.when.Before(opts.Since) {
				return false
			}
			if author != "" && !strings.Contains(strings.ToLower(m.name+" <"+m.email+">"), author) {
				return false
			}
			return true
		}
		// The page is known before any commit is rendered, so that each
		// commit's share of the budget counts only the commits shown.
		var page []*commitMeta
		for i, p := range h.pathCommits(l, opts.Path) {
			if i%512 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			m := l.order[p]
			if !match(m) {
				continue
			}
			out.Total++
			if out.Total > out.Offset && len(page) < n {
				page = append(page, m)
			}
		}
		budget := newLogBudget(opts.MaxBytes, len(page))
		for i, m := range page {
			budget.startCommit(len(page) - i)
			c, err := h.render(m, opts, budget)
			if err != nil {
				return err
			}
			c.Message = h.message(scope, m)
			out.Commits = append(out.Commits, c)
		}
		return nil
	})
	if err != nil {
		return Log{}, err
	}
	return out, nil
}

// pathCommits returns the positions, newest first, of the commits that
// touched path (every commit when path is empty). A file's commits come
// from the path index; a folder's from a scan of the cached changes.
func (h *history) pathCommits(l *lineage, path string) []int32 {
	var out []int32
	if path == "" {
		out = make([]int32, len(l.order))
		for i := range out {
			out[i] = l.top() - int32(i)
		}
		return out
	}
	if !l.dirs[path] {
		ps := l.byPath[path]
		out = make([]int32, len(ps))
		for i, p := range ps {
			out[len(ps)-1-i] = p
		}
		return out
	}
	for p := l.top(); p >= 0; p-- {
		m := l.order[p]
		if len(m.parents) > 1 {
			continue
		}
		for _, d := range h.changes(m) {
			if touchesPath(d, path) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// budget is what is left of an answer's byte budget: left for commit
// headers and diff lines, names for listing files by name once left is
// spent (zero outside Log).
//
// In Log one commit may spend only its share of what is left (share,
// from start; startCommit): a commit that imported 3,000 notes would
// otherwise take the whole answer, and the commits after it would show
// only their messages. Each commit still to show keeps reserve back.
// full says the commit being rendered has spent its share: no later file
// of it starts.
type budget struct {
	left, names  int
	limited      bool
	shared       bool // Log: commits have shares
	share, start int
	reserve      int
	full         bool
}

func newBudget(n int) *budget { return &budget{left: n, limited: n > 0} }

// newLogBudget keeps a quarter of n back for file names, and reserves
// half of n in even parts for the commits of the answer: each keeps its
// part (its header and a few files, 1 KB of 20 among ten commits)
// whatever the commits before it hold.
func newLogBudget(n, commits int) *budget {
	b := newBudget(n)
	b.names = n / 4
	b.left -= b.names
	b.shared = b.limited && commits > 0
	if b.shared {
		b.reserve = n / (2 * commits)
	}
	return b
}

// startCommit begins the share of the next commit, of commitsLeft still
// to render (this one included): what is left less the reserve of the
// commits after it, or an even part of what is left if that is more.
// What a commit leaves unspent goes to those after it.
func (b *budget) startCommit(commitsLeft int) {
	if !b.shared || commitsLeft <= 0 {
		return
	}
	total := b.total()
	b.share, b.start, b.full = max(total/commitsLeft, total-(commitsLeft-1)*b.reserve), total, false
}

// total is what is left of both parts.
func (b *budget) total() int { return max(b.left, 0) + max(b.names, 0) }

// commitRoom is what the commit being rendered may still spend.
func (b *budget) commitRoom() int {
	if !b.shared {
		return math.MaxInt
	}
	return b.share - (b.start - b.total())
}

// commitSpent reports whether the commit being rendered has spent its
// share.
func (b *budget) commitSpent() bool { return b.full || b.commitRoom() <= 0 }

// linesSpent reports whether the budget for headers and diff lines is
// spent.
func (b *budget) linesSpent() bool { return b.limited && b.left <= 0 }

// spent reports whether the whole budget is spent.
func (b *budget) spent() bool { return b.linesSpent() && b.names <= 0 }

// spend charges n bytes to the budget of headers and lines.
func (b *budget) spend(n int) {
	if b.limited {
		b.left -= n
	}
}

// spendName charges a file listed by name to the names' budget, or to the
// lines' budget while that lasts.
func (b *budget) spendName(n int) {
	switch {
	case !b.limited:
	case b.left > 0:
		b.left -= n
	default:
		b.names -= n
	}
}

// keep charges lines (each with overhead bytes of rendering) while the
// budget for diff lines lasts and returns how many of them it paid for.
func (b *budget) keep(lines []string, overhead int) int {
	if !b.limited {
		return len(lines)
	}
	room := b.commitRoom()
	for i, l := range lines {
		n := len(l) + overhead
		switch {
		case n > b.left:
			b.left = 0 // what is left is spent: no later file starts
			return i
		case n > room:
			b.full = true // the commit's share is spent: no later file of it starts
			return i
		}
		b.left -= n
		room -= n
	}
	return len(lines)
}

// capLine cuts a diff line longer than MaxLineBytes, at a character
// boundary, ending it in "…".
func capLine(s string) string {
	if len(s) <= MaxLineBytes {
		return s
	}
	cut := MaxLineBytes
	for back := 0; back < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]); back++ {
		cut-- // not within a character; bytes that start none are cut anywhere
	}
	return s[:cut] + "…"
}

// render turns a cached commit into a Commit with the files that match
// opts, renames detected and line diffs within the budget.
func (h *history) render(m *commitMeta, opts LogOptions, b *budget) (Commit, error) {
	c := Commit{
		Hash: short(m.hash), FullHash: m.hash.String(), Time: m.author, Author: m.name, Email: m.email,
		Message: m.message, Merge: len(m.parents) > 1, Root: len(m.parents) == 0,
	}
	b.spend(len(m.message) + len(m.name) + len(m.email) + 60)
	if c.Merge {
		if opts.Path == "" {
			return c, nil
		}
		// A merge is listed for a path only where it differs from every
		// parent (conflict resolutions): show those files.
	}
	all := h.changes(m)
	if m.changesErr != nil {
		c.Notice = unreadable("files not listed", m.changesErr)
		return c, nil
	}
	var files []store.FileDiff
	for _, d := range all {
		if opts.Path != "" && !touchesPath(d, opts.Path) {
			continue
		}
		if opts.Hide != nil && opts.Hide(d.Path) {
			continue
		}
		if opts.Skip != nil && opts.Skip(d.Path) {
			c.Skipped++
			continue
		}
		files = append(files, d)
	}
	if c.Merge {
		files = h.mergeChanges(m, files)
	}
	parentTree := store.EmptyTree
	if len(m.parents) > 0 {
		if pm, err := h.commit(m.parents[0]); err == nil {
			parentTree = pm.tree
		}
	}
	pairs, notice := h.pairRenames(m, parentTree, files)
	if notice != "" {
		c.Notice = notice
	}
	changes := mergeRenames(files, pairs)
	c.FileCount = len(changes)
	for _, d := range changes {
		if b.spent() || b.commitSpent() {
			break
		}
		lines := !opts.FilesOnly && !b.linesSpent()
		fc := h.fileChange(d, lines)
		fc.CountsOnly = !opts.FilesOnly && !lines
		if !lines {
			b.spendName(len(fc.Path) + len(fc.OldPath) + 30)
			c.Files = append(c.Files, fc)
			continue
		}
		b.spend(len(fc.Path) + len(fc.OldPath) + 30)
		if n := b.keep(fc.Lines, 3); n < len(fc.Lines) {
			fc.Truncated += len(fc.Lines) - n
			fc.Lines, fc.OverBudget = fc.Lines[:n], true
		}
		c.Files = append(c.Files, fc)
	}
	return c, nil
}

// mergeRenames folds each rename pair (index of the added file → index of
// the deleted one) into one change from the old path, sorted by path.
func mergeRenames(files []store.FileDiff, pairs map[int]int) []store.FileDiff {
	gone := map[int]bool{}
	for _, j := range pairs {
		gone[j] = true
	}
	out := make([]store.FileDiff, 0, len(files)-len(pairs))
	for i, d := range files {
		if gone[i] {
			continue
		}
		if j, ok := pairs[i]; ok {
			d.From = files[j].From
			d.From.Path = files[j].Path
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// fileChange computes the kind, line counts and (with lines) the diff of
// one changed file. An unreadable blob gives a notice instead of a diff.
func (h *history) fileChange(d store.FileDiff, lines bool) FileChange {
	fc := FileChange{Path: d.Path}
	switch {
	case d.From.Hash.IsZero():
		fc.Kind = Added
	case d.To.Hash.IsZero():
		fc.Kind = Deleted
	case d.From.Path != "" && d.From.Path != d.Path:
		fc.Kind, fc.OldPath = Renamed, d.From.Path
		if d.From.Hash == d.To.Hash {
			return fc
		}
	default:
		fc.Kind = Modified
	}
	if d.From.Mode == filemode.Submodule || d.To.Mode == filemode.Submodule {
		return fc
	}
	if !lines {
		s, err := h.blobStats(d.From.Hash, d.To.Hash)
		if err != nil {
			fc.Notice = unreadable("line counts not shown", err)
		}
		fc.Added, fc.Removed, fc.Binary = s.added, s.removed, s.binary
		return fc
	}
	old, cur, err := h.blobPair(d.From.Hash, d.To.Hash)
	if err != nil {
		fc.Notice = unreadable("diff not shown", err)
		return fc
	}
	if textmerge.IsBinary(old) || textmerge.IsBinary(cur) || len(old) > maxDiffBytes || len(cur) > maxDiffBytes {
		fc.Binary = true
		return fc
	}
	fc.Lines, fc.Truncated, fc.Added, fc.Removed = diffLines(string(old), string(cur), MaxDiffLines)
	return fc
}

// blobPair reads the two sides of a change (zero hash: empty).
func (h *history) blobPair(from, to plumbing.Hash) (old, cur []byte, err error) {
	if !from.IsZero() {
		if old, err = h.obj.Blob(from); err != nil {
			return nil, nil, err
		}
	}
	if !to.IsZero() {
		if cur, err = h.obj.Blob(to); err != nil {
			return nil, nil, err
		}
	}
	return old, cur, nil
}

// lineCounts are the lines added and removed between two blobs; binary
// (or very large) blobs have none.
type lineCounts struct {
	added, removed int
	binary         bool
}

// blobStats counts the lines added and removed from blob a to blob b
// (zero hash: empty), memoised by their hashes so a warm query reads no
// blob at all.
func (h *history) blobStats(a, b plumbing.Hash) (lineCounts, error) {
	key := [2]plumbing.Hash{a, b}
	if s, ok := h.stats[key]; ok {
		return s, nil
	}
	old, cur, err := h.blobPair(a, b)
	if err != nil {
		return lineCounts{}, err
	}
	var s lineCounts
	if textmerge.IsBinary(old) || textmerge.IsBinary(cur) || len(old) > maxDiffBytes || len(cur) > maxDiffBytes {
		s.binary = true
	} else {
		_, _, s.added, s.removed = diffLines(string(old), string(cur), 0)
	}
	if len(h.stats) >= statsCacheLimit {
		clear(h.stats)
	}
	h.stats[key] = s
	return s, nil
}

// unreadable phrases an object read failure for a client: what is left
// out and why. The error's own text is left out: it may carry the
// server's paths.
func unreadable(what string, err error) string {
	if isMissing(err) {
		return what + ": a git object it needs is missing from this repository (a partial clone or a lost object)"
	}
	return what + ": a git object it needs cannot be read (damaged or unreadable)"
}

// diffLines returns the removed and added lines from a to b, prefixed with
// "-" and "+", keeping at most limit of them and counting the rest, and
// the number of lines added and removed.
func diffLines(a, b string, limit int) (lines []string, cut, added, removed int) {
	add := func(prefix string, text string) {
		for _, l := range textmerge.SplitLines(text) {
			if prefix == "+" {
				added++
			} else {
				removed++
			}
			if len(lines) < limit {
				lines = append(lines, capLine(prefix+strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")))
			} else {
				cut++
			}
		}
	}
	switch {
	case a == b:
		return nil, 0, 0, 0
	case a == "":
		add("+", b)
		return
	case b == "":
		add("-", a)
		return
	}
	for _, d := range textmerge.LineDiff(a, b) {
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			add("-", d.Text)
		case diffmatchpatch.DiffInsert:
			add("+", d.Text)
		}
	}
	return
}
