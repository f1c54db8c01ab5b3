package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/when"
)

// ErrNoVersion is wrapped by errors about a version spec that names no
// commit of the branch (a bad spec is an error of its own).
var ErrNoVersion = errors.New("no such version")

// ErrNotInVersion is wrapped by errors about a path that did not exist at
// the version asked for.
var ErrNotInVersion = errors.New("not in that version")

// Version is the commit a version spec resolved to.
type Version struct {
	// Spec is the version as it was asked for.
	Spec           string
	Hash, FullHash string
	Time           time.Time // author time, in the author's time zone
	Committed      time.Time // commit time: when it entered the history
	Author, Email  string
	Message        string
	// Head is true when the version is the branch's current head.
	Head bool
}

// versionHelp lists the accepted spellings for error messages.
const versionHelp = "a commit hash or its first 4+ hex digits, HEAD, HEAD~N (N commits back), HEAD^, or a time meaning \"as of\": " + when.Help + " (a day means as it began)"

// ResolveVersion resolves a version spec against the branch's history:
// a full or abbreviated commit hash, HEAD, a hash or HEAD followed by ~N
// (N first parents back) or ^N (the N-th parent), or an ISO 8601 date or
// date-time meaning the branch as of then: the newest commit on its
// first-parent line committed at or before it. A date alone means the
// start of that day, as in since filters (ParseTime): the vault as it was
// before any change of that day, so a diff from a date shows that day's
// changes and on. A time without a zone is in the server's time zone.
func (r *History) ResolveVersion(ctx context.Context, spec string) (Version, error) {
	var v Version
	err := r.withLineage(ctx, func(h *history, l *lineage) error {
		q, err := h.resolve(l, spec)
		if err != nil {
			return err
		}
		v = versionOf(ctx, h, l, q, spec)
		return nil
	})
	return v, err
}

func versionOf(ctx context.Context, h *history, l *lineage, q int32, spec string) Version {
	m := l.order[q]
	return Version{
		Spec: spec, Hash: short(m.hash), FullHash: m.hash.String(), Time: m.author, Committed: m.when,
		Author: m.name, Email: m.email, Message: h.message(hidingScope(ctx), m), Head: q == l.top(),
	}
}

// resolve returns the lineage position a version spec names.
func (h *history) resolve(l *lineage, spec string) (int32, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return 0, fmt.Errorf("the version is empty: give %s", versionHelp)
	}
	if len(l.order) == 0 {
		return 0, fmt.Errorf("%w: the history has no commits yet", ErrNoVersion)
	}
	if t, ok, err := asOfTime(s, time.Now()); ok || err != nil {
		if err != nil {
			return 0, err
		}
		return h.asOf(l, t, s)
	}
	base, suffix := s, ""
	if i := strings.IndexAny(s, "~^"); i >= 0 {
		base, suffix = s[:i], s[i:]
	}
	var q int32
	switch {
	case strings.EqualFold(base, "HEAD") || base == "@":
		q = l.top()
	case isHex(base) && len(base) >= 4 && len(base) <= 40:
		var err error
		if q, err = findPrefix(l, strings.ToLower(base)); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("version %q is not understood: give %s", spec, versionHelp)
	}
	return h.walkSuffix(l, q, suffix, spec)
}

// walkSuffix applies ~N and ^N steps from position q.
func (h *history) walkSuffix(l *lineage, q int32, suffix, spec string) (int32, error) {
	for suffix != "" {
		op := suffix[0]
		j := 1
		for j < len(suffix) && suffix[j] >= '0' && suffix[j] <= '9' {
			j++
		}
		n := 1
		if j > 1 {
			v, err := strconv.Atoi(suffix[1:j])
			if err != nil || v > 1_000_000 {
				return 0, fmt.Errorf("version %q: %q is not a number of commits", spec, suffix[1:j])
			}
			n = v
		}
		suffix = suffix[j:]
		if op != '~' && op != '^' {
			return 0, fmt.Errorf("version %q is not understood: give %s", spec, versionHelp)
		}
		steps, parent := n, 0
		if op == '^' {
			if n == 0 {
				continue
			}
			steps, parent = 1, n-1
		}
		for ; steps > 0; steps-- {
			m := l.order[q]
			if parent >= len(m.parents) {
				if len(m.parents) == 0 {
					return 0, fmt.Errorf("%w: %s goes back further than the history, which starts at %s (%s)",
						ErrNoVersion, spec, short(m.hash), m.author.Format(time.DateOnly))
				}
				return 0, fmt.Errorf("%w: %s: commit %s has %d parent(s)", ErrNoVersion, spec, short(m.hash), len(m.parents))
			}
			p, ok := l.pos[m.parents[parent]]
			if !ok {
				return 0, fmt.Errorf("%w: %s goes back to commit %s, which cannot be read in this repository (a shallow or partial clone)",
					ErrNoVersion, spec, short(m.parents[parent]))
			}
			q, parent = p, 0
		}
	}
	return q, nil
}

// findPrefix finds the commit of the lineage whose hash starts with the
// lowercase hex prefix.
func findPrefix(l *lineage, prefix string) (int32, error) {
	if len(prefix) == 40 {
		if q, ok := l.pos[plumbing.NewHash(prefix)]; ok {
			return q, nil
		}
		return 0, fmt.Errorf("%w: commit %s is not in the history of this branch", ErrNoVersion, prefix)
	}
	found := int32(-1)
	var others []string
	for q := l.top(); q >= 0; q-- {
		if !hasHexPrefix(l.order[q].hash, prefix) {
			continue
		}
		if found < 0 {
			found = q
			continue
		}
		others = append(others, l.order[q].hash.String()[:len(prefix)+3])
	}
	switch {
	case found < 0:
		return 0, fmt.Errorf("%w: no commit starting with %s in the history of this branch", ErrNoVersion, prefix)
	case len(others) > 0:
		all := append([]string{l.order[found].hash.String()[:len(prefix)+3]}, others...)
		if len(all) > 5 {
			all = append(all[:5], "…")
		}
		return 0, fmt.Errorf("commit prefix %s is ambiguous (%s); give more digits", prefix, strings.Join(all, ", "))
	}
	return found, nil
}

// hasHexPrefix reports whether h's hex form starts with prefix (lowercase
// hex digits), without formatting h.
func hasHexPrefix(h plumbing.Hash, prefix string) bool {
	for i := 0; i < len(prefix); i++ {
		b := h[i/2]
		if i%2 == 0 {
			b >>= 4
		}
		if "0123456789abcdef"[b&0xf] != prefix[i] {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// asOf returns the newest commit on the first-parent line from the head
// committed at or before t: the branch as it was then.
func (h *history) asOf(l *lineage, t time.Time, spec string) (int32, error) {
	q := l.top()
	for {
		m := l.order[q]
		if !m.when.After(t) {
			return q, nil
		}
		if len(m.parents) == 0 {
			day := ""
			if len(spec) == len(time.DateOnly) {
				day = fmt.Sprintf(" (a date alone is the start of that day; for the changes made since then use since=%q, or start from commit %s)", spec, short(m.hash))
			}
			return 0, fmt.Errorf("%w: nothing as of %s: the history starts at %s (commit %s)%s",
				ErrNoVersion, spec, m.when.Format("2006-01-02 15:04:05 -0700"), short(m.hash), day)
		}
		p, ok := l.pos[m.parents[0]]
		if !ok {
			return 0, fmt.Errorf("%w: nothing as of %s in this repository: its history stops at commit %s (a shallow or partial clone)",
				ErrNoVersion, spec, short(m.hash))
		}
		q = p
	}
}

// asOfTime reads a version spec that names a time, in the forms every
// tool reads (package when: dates, date-times, yesterday, 7d, "2 weeks
// ago"). ok is false when spec is not a time at all (so it may be a hash
// or HEAD); text that starts as a date but does not parse is an error. A
// day (a date alone, yesterday) is the moment before it starts, so that
// "as of" a day leaves out every commit a since filter of that day keeps.
func asOfTime(spec string, now time.Time) (t time.Time, ok bool, err error) {
	if isHex(spec) && len(spec) >= 4 || strings.EqualFold(spec, "HEAD") || strings.ContainsAny(spec, "~^@") {
		return time.Time{}, false, nil
	}
	t, day, err := when.ParseDay(spec, now)
	if err != nil {
		if len(spec) >= 10 && spec[4] == '-' && spec[7] == '-' {
			return time.Time{}, true, err
		}
		return time.Time{}, false, nil
	}
	if day {
		t = t.Add(-time.Nanosecond)
	}
	return t, true, nil
}

// FileVersion is a file as it was at one version.
type FileVersion struct {
	Version Version
	// Path is the file's path at that version: the asked path, or the
	// name the note had then when it was renamed since.
	Path string
	// Content is at most the asked number of bytes; Size the whole size.
	Content   []byte
	Size      int64
	Truncated bool
	// Symlink is set when the entry was a symbolic link (Content is its
	// target).
	Symlink bool
	// Blob is the git blob id of the whole content: its version, as a
	// read of the current file gives it.
	Blob string
}

// FileAt returns the file at path as it was at version spec (see
// ResolveVersion), at most maxBytes of it (maxBytes <= 0: all). A note
// renamed since is found under the name it had then.
func (r *History) FileAt(ctx context.Context, spec, path string, maxBytes int64) (FileVersion, error) {
	p, err := store.CleanPath(path)
	if err != nil {
		return FileVersion{}, err
	}
	var out FileVersion
	err = r.withLineage(ctx, func(h *history, l *lineage) error {
		q, err := h.resolve(l, spec)
		if err != nil {
			return err
		}
		out.Version = versionOf(ctx, h, l, q, spec)
		e, name, err := h.entryAt(l, q, p)
		if err != nil {
			return err
		}
		out.Path = name
		data, err := h.obj.Blob(e.Hash)
		if err != nil {
			return fmt.Errorf("%s at %s: %s", name, out.Version.Hash, unreadable("content not readable", err))
		}
		out.Size = int64(len(data))
		out.Symlink = e.Mode == filemode.Symlink
		out.Blob = e.Hash.String()
		if maxBytes > 0 && int64(len(data)) > maxBytes {
			data, out.Truncated = data[:maxBytes], true
		}
		out.Content = data
		return nil
	})
	if err != nil {
		return FileVersion{}, r.scrub(err)
	}
	return out, nil
}

// entryAt finds the file a path names at position q: the path itself, or
// the name the note had then (following renames from the head).
func (h *history) entryAt(l *lineage, q int32, p string) (store.FileEntry, string, error) {
	m := l.order[q]
	name := p
	e, ok, err := h.obj.Lookup(m.tree, p)
	if err == nil && !ok {
		name = nameAt(h.follow(l, p, l.top()), p, q)
		if name != p {
			e, ok, err = h.obj.Lookup(m.tree, name)
		}
	}
	if err != nil {
		return store.FileEntry{}, "", fmt.Errorf("%s at %s: %s", p, short(m.hash), unreadable("file list not readable", err))
	}
	if !ok {
		return store.FileEntry{}, "", fmt.Errorf("%w: %s did not exist at version %s (%s); get_note_history lists the versions it has",
			ErrNotInVersion, p, short(m.hash), m.author.Format("2006-01-02 15:04:05 -0700"))
	}
	if e.Mode == filemode.Dir {
		return store.FileEntry{}, "", fmt.Errorf("%s was a folder at version %s, not a file", name, short(m.hash))
	}
	if e.Mode == filemode.Submodule {
		return store.FileEntry{}, "", fmt.Errorf("%s was a git submodule at version %s, not a file", name, short(m.hash))
	}
	return store.FileEntry{Path: name, Hash: e.Hash, Mode: e.Mode}, name, nil
}
