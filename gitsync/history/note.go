package history

import (
	"context"
	"sort"
	"strings"
	"time"

	"vaultmcp/gitsync/internal/store"
)

// Paging of NoteHistory.
const (
	// DefaultHistoryLimit is the page size when Limit <= 0.
	DefaultHistoryLimit = 20
	// MaxHistoryLimit caps Limit.
	MaxHistoryLimit = 500
)

// NoteHistoryOptions select a page of one note's history.
type NoteHistoryOptions struct {
	// Path is the note's vault-relative path (now, or when it was deleted).
	Path string
	// Limit is the page size (DefaultHistoryLimit when <= 0, at most
	// MaxHistoryLimit); Offset skips that many entries, newest first.
	Limit, Offset int
	// Since and Author filter as in LogOptions.
	Since  time.Time
	Author string
}

// NoteHistory is a page of the commits that changed one note, newest
// first, following it across renames.
type NoteHistory struct {
	Path     string
	Versions []NoteVersion
	// Total is the number of matching commits; Offset where this page
	// starts.
	Total, Offset int
	// RenamedTo is the note's name now when Path is an old name of it
	// (the newest commit that touched Path moved the note away), and
	// RenamedIn that commit's short hash.
	RenamedTo, RenamedIn string
	Notices              []string
}

// NoteVersion is one commit in a note's history.
type NoteVersion struct {
	Hash, FullHash string
	Time           time.Time // author time, in the author's time zone
	Author, Email  string
	Message        string
	// Path is where the note was after the commit (where it was before,
	// for a deletion); OldPath where it came from when the commit moved it.
	Path, OldPath  string
	Kind           ChangeKind
	Added, Removed int
	// Notice says why the line counts or a rename are unknown.
	Notice string
}

// noteStep is one commit of a followed history.
type noteStep struct {
	pos     int32
	d       store.FileDiff // the change of path in that commit (d.Path == path)
	path    string
	oldPath string // set when the commit renamed oldPath to path
	newPath string // set when the commit renamed path to newPath
	notice  string
}

// follow returns the commits at or below position from that changed the
// note called path there, newest first, switching to the old name at each
// rename (our "rename a -> b" commits and git's rename detection), as
// `git log --follow` does.
func (h *history) follow(l *lineage, path string, from int32) []noteStep {
	var steps []noteStep
	name, limit := path, from
	for renamed := true; renamed; {
		renamed = false
		ps := l.byPath[name]
		i := sort.Search(len(ps), func(i int) bool { return ps[i] > limit }) - 1
		for ; i >= 0; i-- {
			p := ps[i]
			m := l.order[p]
			d, ok := h.change(m, name)
			if !ok {
				continue
			}
			st := noteStep{pos: p, d: d, path: name}
			if d.From.Hash.IsZero() {
				rs := h.renameFrom(m, name)
				st.notice = rs.notice
				if rs.from != "" {
					st.oldPath = rs.from
					if old, ok := h.change(m, rs.from); ok {
						st.d.From = old.From
					}
					steps = append(steps, st)
					name, limit, renamed = rs.from, p-1, true
					break
				}
			}
			if d.To.Hash.IsZero() && !d.From.Hash.IsZero() {
				// Gone from here: moved (asked by the old name) or deleted.
				st.newPath = h.renamedTo(m, name)
			}
			steps = append(steps, st)
		}
	}
	return steps
}

// nameAt returns the note's path at position q, given its followed
// history from a newer position: every rename newer than q is undone.
func nameAt(steps []noteStep, path string, q int32) string {
	for _, st := range steps {
		if st.pos <= q {
			break
		}
		if st.oldPath != "" {
			path = st.oldPath
		}
	}
	return path
}

// NoteHistory returns a page of the commits that changed one note, newest
// first, following renames, each with its line counts. It answers from
// the path index of the history cache: a walk over the note's own
// commits, not over the whole history.
func (r *History) NoteHistory(ctx context.Context, opts NoteHistoryOptions) (NoteHistory, error) {
	p, err := store.CleanPath(opts.Path)
	if err != nil {
		return NoteHistory{}, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	limit = min(limit, MaxHistoryLimit)
	out := NoteHistory{Path: p, Offset: max(opts.Offset, 0)}
	author := strings.ToLower(opts.Author)
	scope := hidingScope(ctx)
	err = r.withLineage(ctx, func(h *history, l *lineage) error {
		out.Notices = endNotices(l)
		steps := h.follow(l, p, l.top())
		if len(steps) > 0 && steps[0].newPath != "" {
			if now := h.forward(l, steps[0].newPath, steps[0].pos); scope == nil || scope.Visible(now) {
				out.RenamedTo, out.RenamedIn = now, short(l.order[steps[0].pos].hash)
			}
		}
		for _, st := range steps {
			m := l.order[st.pos]
			if scope != nil {
				// The note's life in a hidden folder is not shown, nor
				// where it came from.
				if !scope.Visible(st.path) {
					continue
				}
				if st.oldPath != "" && !scope.Visible(st.oldPath) {
					st.oldPath = ""
				}
				if st.newPath != "" && !scope.Visible(st.newPath) {
					st.newPath = ""
				}
			}
			if !opts.Since.IsZero() && m.when.Before(opts.Since) {
				continue
			}
			if author != "" && !strings.Contains(strings.ToLower(m.name+" <"+m.email+">"), author) {
				continue
			}
			out.Total++
			if out.Total <= out.Offset || len(out.Versions) >= limit {
				continue
			}
			v := h.noteVersion(m, st)
			v.Message = h.message(scope, m)
			out.Versions = append(out.Versions, v)
		}
		return ctx.Err()
	})
	if err != nil {
		return NoteHistory{}, err
	}
	return out, nil
}

// noteVersion renders one step of a note's history.
func (h *history) noteVersion(m *commitMeta, st noteStep) NoteVersion {
	v := NoteVersion{
		Hash: short(m.hash), FullHash: m.hash.String(), Time: m.author, Author: m.name, Email: m.email,
		Message: m.message, Path: st.path, OldPath: st.oldPath, Notice: st.notice,
	}
	switch {
	case st.oldPath != "":
		v.Kind = Renamed
	case st.newPath != "":
		// Asked by its old name: the commit moved the note away.
		v.Kind, v.Path, v.OldPath = Renamed, st.newPath, st.path
		to, ok := h.change(m, st.newPath)
		if !ok {
			return v
		}
		st.d.To = to.To
	case st.d.From.Hash.IsZero():
		v.Kind = Added
	case st.d.To.Hash.IsZero():
		v.Kind = Deleted
	default:
		v.Kind = Modified
	}
	if st.d.From.Hash == st.d.To.Hash {
		return v
	}
	s, err := h.blobStats(st.d.From.Hash, st.d.To.Hash)
	if err != nil {
		v.Notice = unreadable("line counts not shown", err)
		return v
	}
	v.Added, v.Removed = s.added, s.removed
	return v
}

// Rename is where a path that is gone was moved to.
type Rename struct {
	// Path is the note's name now (later renames followed), Commit the
	// short hash of the commit that moved it away from the old path.
	Path, Commit string
}

// RenamedTo reports where the file once at path is now, when the newest
// commit that touched path moved it elsewhere (renames after that are
// followed). It is meant for not-found errors and stays cheap there: a
// lookup in the history cache, nothing at all before the cache is built.
func (r *History) RenamedTo(ctx context.Context, path string) (Rename, bool) {
	p, err := store.CleanPath(path)
	if err != nil || p == "" {
		return Rename{}, false
	}
	head, err := r.historyHead()
	if err != nil {
		return Rename{}, false
	}
	h := r.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lin == nil || ctx.Err() != nil {
		return Rename{}, false // still warming up: not worth the wait
	}
	l, err := h.lineageFor(ctx, head)
	if err != nil {
		return Rename{}, false
	}
	ps := l.byPath[p]
	if len(ps) == 0 {
		return Rename{}, false
	}
	pos := ps[len(ps)-1]
	m := l.order[pos]
	d, ok := h.change(m, p)
	if !ok || !d.To.Hash.IsZero() {
		return Rename{}, false
	}
	to := h.renamedTo(m, p)
	if to == "" {
		return Rename{}, false
	}
	return Rename{Path: h.forward(l, to, pos), Commit: short(m.hash)}, true
}

// InHistory reports whether some commit of the branch changed a file at
// path (file) or a file under the folder path (dir).
func (r *History) InHistory(ctx context.Context, path string) (file, dir bool, err error) {
	p, err := store.CleanPath(path)
	if err != nil {
		return false, false, err
	}
	err = r.withLineage(ctx, func(h *history, l *lineage) error {
		file, dir = len(l.byPath[p]) > 0, l.dirs[p]
		return nil
	})
	return file, dir, err
}

// HistoryPaths calls fn with every file path a commit of the branch
// changed and every folder above one (dir true), in no order, until fn
// returns false: what a caller needs to match a mistyped path against
// notes that exist only in the history. It holds the history lock
// throughout, so fn must be quick.
func (r *History) HistoryPaths(ctx context.Context, fn func(path string, dir bool) bool) error {
	return r.withLineage(ctx, func(h *history, l *lineage) error {
		for p := range l.byPath {
			if !fn(p, false) {
				return nil
			}
		}
		for p := range l.dirs {
			if !fn(p, true) {
				return nil
			}
		}
		return nil
	})
}
