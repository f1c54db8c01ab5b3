package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/gitsync/internal/textmerge"
)

// Paging of whole-vault diffs.
const (
	// DefaultDiffFiles is the number of files per page when Limit <= 0.
	DefaultDiffFiles = 50
	// MaxDiffFiles caps Limit.
	MaxDiffFiles = 1000
	// diffContext is the number of unchanged lines around each change.
	diffContext = 3
)

// DiffOptions select a diff between two versions.
type DiffOptions struct {
	// Path is one note, followed across renames (its current name, or its
	// name when it was deleted); "" diffs the whole vault.
	Path string
	// From and To are version specs (see ResolveVersion); To "" is HEAD.
	From, To string
	// Limit and Offset page the files of a whole-vault diff
	// (DefaultDiffFiles when Limit <= 0, at most MaxDiffFiles).
	Limit, Offset int
	// MaxBytes is a budget for the diff text (approximate), charged per
	// line: where it runs out the file's lines stop (FilePatch.OverBudget)
	// and further files are counted but not listed. 0 means none.
	MaxBytes int
	// Hide and Skip leave matching paths out, as in LogOptions; skipped
	// ones are counted in Diff.Skipped.
	Hide, Skip func(path string) bool
}

// Diff is a unified diff between two versions.
type Diff struct {
	From, To Version
	// Path and FromPath are the note's names at To and at From (a note
	// diff; FromPath differs after a rename).
	Path, FromPath string
	Files          []FilePatch
	// Total is the number of changed files; Offset where this page
	// starts.
	Total, Offset int
	// Skipped counts the files DiffOptions.Skip left out.
	Skipped int
	Notices []string
}

// FilePatch is one file's unified diff.
type FilePatch struct {
	Path    string
	OldPath string // the path at From, for a rename
	Kind    ChangeKind
	Binary  bool
	// Lines is the unified diff: "@@ -a,b +c,d @@" hunk headers, then
	// " " context, "-" removed and "+" added lines; at most MaxDiffLines.
	Lines []string
	// Truncated is how many diff lines were cut after MaxDiffLines, or
	// where the answer's budget ran out (OverBudget).
	Truncated int
	// OverBudget is set when the answer's budget ran out within this
	// file's lines.
	OverBudget     bool
	Added, Removed int
	// Notice says why there is no diff (an unreadable object).
	Notice string
}

// Diff returns the unified diff between two versions of one note
// (following renames as NoteHistory does) or of the whole vault, with at
// most MaxDiffLines lines per file.
func (r *History) Diff(ctx context.Context, opts DiffOptions) (Diff, error) {
	opts.Hide = hideUnder(hidingScope(ctx), opts.Hide)
	if opts.Path != "" {
		p, err := store.CleanPath(opts.Path)
		if err != nil {
			return Diff{}, err
		}
		opts.Path = p
	}
	if strings.TrimSpace(opts.To) == "" {
		opts.To = "HEAD"
	}
	var out Diff
	err := r.withLineage(ctx, func(h *history, l *lineage) error {
		qf, err := h.resolve(l, opts.From)
		if err != nil {
			return fmt.Errorf("from: %w", err)
		}
		qt, err := h.resolve(l, opts.To)
		if err != nil {
			return fmt.Errorf("to: %w", err)
		}
		out.From, out.To = versionOf(ctx, h, l, qf, opts.From), versionOf(ctx, h, l, qt, opts.To)
		out.Notices = endNotices(l)
		if opts.Path != "" {
			return h.noteDiff(l, qf, qt, opts.Path, newBudget(opts.MaxBytes), &out)
		}
		return h.vaultDiff(l, qf, qt, opts, &out)
	})
	if err != nil {
		return Diff{}, r.scrub(err)
	}
	return out, nil
}

// noteDiff fills out with the diff of one note between positions qf and qt.
func (h *history) noteDiff(l *lineage, qf, qt int32, p string, b *budget, out *Diff) error {
	steps := h.follow(l, p, l.top())
	from, to := nameAt(steps, p, qf), nameAt(steps, p, qt)
	out.Path, out.FromPath = to, from
	ef, okf, err := h.obj.Lookup(l.order[qf].tree, from)
	if err != nil {
		return fmt.Errorf("%s at %s: %s", from, out.From.Hash, unreadable("file list not readable", err))
	}
	et, okt, err := h.obj.Lookup(l.order[qt].tree, to)
	if err != nil {
		return fmt.Errorf("%s at %s: %s", to, out.To.Hash, unreadable("file list not readable", err))
	}
	if !okf && !okt {
		return fmt.Errorf("%w: %s existed at neither %s nor %s; get_note_history lists the versions it has",
			ErrNotInVersion, p, out.From.Hash, out.To.Hash)
	}
	d := store.FileDiff{Path: to}
	if okf && ef.Mode != filemode.Dir {
		d.From = store.FileEntry{Path: from, Hash: ef.Hash, Mode: ef.Mode}
	}
	if okt && et.Mode != filemode.Dir {
		d.To = store.FileEntry{Path: to, Hash: et.Hash, Mode: et.Mode}
	}
	if !okt {
		d.Path = from
	}
	if d.From.Hash == d.To.Hash {
		out.Total = 0
		return nil
	}
	out.Total = 1
	fp := h.filePatch(d)
	b.spend(len(fp.Path) + len(fp.OldPath) + 30)
	b.cut(&fp)
	out.Files = []FilePatch{fp}
	return nil
}

// cut keeps the lines of fp that the budget pays for.
func (b *budget) cut(fp *FilePatch) {
	if n := b.keep(fp.Lines, 1); n < len(fp.Lines) {
		fp.Truncated += len(fp.Lines) - n
		fp.Lines, fp.OverBudget = fp.Lines[:n], true
	}
}

// vaultDiff fills out with a page of the diff of every file between
// positions qf and qt, renames detected.
func (h *history) vaultDiff(l *lineage, qf, qt int32, opts DiffOptions, out *Diff) error {
	tf, tt := l.order[qf].tree, l.order[qt].tree
	all, err := h.obj.DiffTrees(tf, tt)
	if err != nil {
		return fmt.Errorf("diff %s..%s: %s", out.From.Hash, out.To.Hash, unreadable("changed files not readable", err))
	}
	files := all[:0:0]
	for _, d := range all {
		if opts.Hide != nil && opts.Hide(d.Path) {
			continue
		}
		if opts.Skip != nil && opts.Skip(d.Path) {
			out.Skipped++
			continue
		}
		files = append(files, d)
	}
	message := ""
	if m := l.order[qt]; len(m.parents) > 0 && m.parents[0] == l.order[qf].hash {
		message = m.message // one commit: its own rename message names its pairs
	}
	pairs, notice := h.pairRenamesIn(message, tf, tt, files)
	if notice != "" {
		out.Notices = append(out.Notices, notice)
	}
	changes := mergeRenames(files, pairs)
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultDiffFiles
	}
	limit = min(limit, MaxDiffFiles)
	out.Total, out.Offset = len(changes), max(opts.Offset, 0)
	b := newBudget(opts.MaxBytes)
	for i := out.Offset; i < len(changes) && len(out.Files) < limit && !b.spent(); i++ {
		fp := h.filePatch(changes[i])
		b.spend(len(fp.Path) + len(fp.OldPath) + 30)
		b.cut(&fp)
		out.Files = append(out.Files, fp)
	}
	return nil
}

// filePatch computes one file's unified diff.
func (h *history) filePatch(d store.FileDiff) FilePatch {
	fp := FilePatch{Path: d.Path}
	switch {
	case d.From.Hash.IsZero():
		fp.Kind = Added
	case d.To.Hash.IsZero():
		fp.Kind = Deleted
		fp.Path = d.From.Path
		if fp.Path == "" {
			fp.Path = d.Path
		}
	case d.From.Path != "" && d.From.Path != d.Path:
		fp.Kind, fp.OldPath = Renamed, d.From.Path
	default:
		fp.Kind = Modified
	}
	if d.From.Hash == d.To.Hash || d.From.Mode == filemode.Submodule || d.To.Mode == filemode.Submodule {
		return fp
	}
	key := [2]plumbing.Hash{d.From.Hash, d.To.Hash}
	if b, ok := h.patches[key]; ok {
		fp.Binary, fp.Lines, fp.Truncated, fp.Added, fp.Removed = b.binary, b.lines, b.truncated, b.added, b.removed
		return fp
	}
	defer func() {
		if fp.Notice == "" {
			if len(h.patches) >= patchCacheLimit {
				clear(h.patches)
			}
			h.patches[key] = patchBody{fp.Binary, fp.Lines, fp.Truncated, fp.Added, fp.Removed}
		}
	}()
	old, cur, err := h.blobPair(d.From.Hash, d.To.Hash)
	if err != nil {
		fp.Notice = unreadable("diff not shown", err)
		return fp
	}
	fp.setLines(old, cur)
	return fp
}

// patchBody is the memoised part of a FilePatch: what depends only on the
// two blobs.
type patchBody struct {
	binary                    bool
	lines                     []string
	truncated, added, removed int
}

// patchCacheLimit bounds history.patches: at most 80 lines of at most
// MaxLineBytes each, 12 MB at the very worst, a few hundred KB for notes.
const patchCacheLimit = 512

// unifiedLines renders the unified diff of a to b (hunks only, no file
// header) with go-git's encoder, and counts the lines added and removed.
func unifiedLines(a, b string, context int) (lines []string, added, removed int) {
	var chunks []diff.Chunk
	add := func(op diff.Operation, text string) {
		n := len(textmerge.SplitLines(text))
		switch op {
		case diff.Add:
			added += n
		case diff.Delete:
			removed += n
		}
		chunks = append(chunks, chunk{text, op})
	}
	switch {
	case a == b:
		return nil, 0, 0
	case a == "":
		add(diff.Add, b)
	case b == "":
		add(diff.Delete, a)
	default:
		for _, d := range textmerge.LineDiff(a, b) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				add(diff.Equal, d.Text)
			case diffmatchpatch.DiffDelete:
				add(diff.Delete, d.Text)
			case diffmatchpatch.DiffInsert:
				add(diff.Add, d.Text)
			}
		}
	}
	var sb strings.Builder
	fp := filePatch{chunks: chunks}
	if a != "" {
		fp.from = patchFile{"a"}
	}
	if b != "" {
		fp.to = patchFile{"b"}
	}
	if err := diff.NewUnifiedEncoder(&sb, context).Encode(patch{fp}); err != nil {
		return nil, added, removed
	}
	body := false
	for _, line := range strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n") {
		if !body && !strings.HasPrefix(line, "@@") {
			continue // the file header: the caller says which file it is
		}
		body = true
		lines = append(lines, capLine(strings.TrimSuffix(line, "\r")))
	}
	return lines, added, removed
}

// The go-git diff interfaces over one text diff.
type (
	chunk struct {
		text string
		op   diff.Operation
	}
	patchFile struct{ path string }
	filePatch struct {
		from, to diff.File
		chunks   []diff.Chunk
	}
	patch struct{ fp filePatch }
)

func (c chunk) Content() string                 { return c.text }
func (c chunk) Type() diff.Operation            { return c.op }
func (f patchFile) Hash() plumbing.Hash         { return plumbing.ZeroHash }
func (f patchFile) Mode() filemode.FileMode     { return filemode.Regular }
func (f patchFile) Path() string                { return f.path }
func (p filePatch) IsBinary() bool              { return false }
func (p filePatch) Files() (from, to diff.File) { return p.from, p.to }
func (p filePatch) Chunks() []diff.Chunk        { return p.chunks }
func (p patch) FilePatches() []diff.FilePatch   { return []diff.FilePatch{p.fp} }
func (p patch) Message() string                 { return "" }

var _ diff.Patch = patch{}
