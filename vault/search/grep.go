package search

import (
	"bytes"
	"container/heap"
	"context"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"vaultmcp/vault"
)

const (
	// DefaultGrepLimit is the documented cap on grep results (docs/notes.md, Answers sized for an agent).
	DefaultGrepLimit = 500
	// MaxContext is the most context lines grep shows around a match.
	MaxContext = 5
	// maxLineBytes is the longest line shown whole; longer lines are
	// shortened to a window around the match.
	maxLineBytes = 300
	// windowBefore is how much of a long line is kept before the match.
	windowBefore = 100
)

// GrepQuery is one grep call.
type GrepQuery struct {
	Query string
	// Path is a folder or a file to search ("" = the whole vault).
	Path string
	// Regex says Query is a regular expression (Go RE2 syntax), not
	// plain text.
	Regex         bool
	CaseSensitive bool
	// Include is a glob files must match (see compileGlob), "" for all.
	Include string
	// Context is how many lines to show before and after each match,
	// 0 to MaxContext.
	Context int
	// Limit caps the matching lines returned; 0 means DefaultGrepLimit.
	Limit int
	// Offset skips that many matching lines (in path order) first.
	Offset int
	// IgnoreAccents matches a plain-text Query ignoring accents, Unicode
	// form and (unless CaseSensitive) case: "cafe creme" finds "Café
	// crème". It is for the hint of an empty answer, not for searching.
	IgnoreAccents bool
	// FilesOnly asks for the matching files with their counts
	// (GrepResult.Counts) instead of lines; Limit and Offset are then
	// up to the caller.
	FilesOnly bool
}

// FileCount is a file and how many of its lines match.
type FileCount struct {
	Path  string
	Lines int
}

// Line is one line of grep output.
type Line struct {
	Path string
	Num  int
	// Text is the line without its line break, shortened around the
	// match when very long ("…" marks the cuts).
	Text string
	// Match is false for a context line.
	Match bool
	// Break marks the first line of a group that does not continue the
	// previous one (with context, printed as "--" before it).
	Break bool
}

// GrepResult is what a grep found.
type GrepResult struct {
	Lines []Line
	// Shown counts the matching lines in Lines; Total those in all files
	// searched, in Files files. Searched counts the text files searched.
	Shown, Total, Files, Searched int
	// Counts lists every matching file in path order, for FilesOnly.
	Counts []FileCount
	// FromMemory says the texts came from the Texts source.
	FromMemory bool
}

// Grep finds the lines matching q, in path order.
func (e *Engine) Grep(ctx context.Context, q GrepQuery) (*GrepResult, error) {
	m, err := compileQuery(q.Query, q.Regex, q.CaseSensitive)
	if err != nil {
		return nil, err
	}
	if q.IgnoreAccents && !q.Regex {
		if f, ok := newLooseFinder(q.Query, !q.CaseSensitive); ok {
			m.loose = f
		}
	}
	var include *glob
	if q.Include != "" {
		if include, err = compileGlob("include_pattern", q.Include, true); err != nil {
			return nil, err
		}
	}
	p, fi, err := e.stat(ctx, q.Path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, &vault.Error{Kind: vault.ErrInvalidInput, Path: q.Path,
			Msg: q.Path + " is not a regular file or a folder (a FIFO, socket or device is never read)"}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultGrepLimit
	}
	offset := max(q.Offset, 0)
	r := &grepRun{e: e, m: m, context: min(max(q.Context, 0), MaxContext),
		out: collector{limit: offset + limit, offset: offset, countOnly: q.FilesOnly}}
	g := e.newGuard()
	dir := p.Rel
	if !fi.IsDir() {
		dir = path.Dir(p.Rel)
		if dir == "." {
			dir = ""
		}
	}
	wanted := func(rel string) bool {
		return include == nil || include.match(within(dir, rel))
	}

	res := &GrepResult{}
	switch {
	case !fi.IsDir():
		if wanted(p.Rel) {
			r.fromDisk(fileRef{rel: p.Rel, abs: p.Abs})
		}
	case e.memoryGrep(ctx, g, r, p, wanted):
		res.FromMemory = true
	default:
		err := walkFiles(ctx, g, e.v, p, e.workers, nil, func(f fileRef) {
			if wanted(f.rel) && !knownBinary(f.rel) {
				r.fromDisk(f)
			}
		})
		if err != nil {
			return nil, err
		}
		if p.IsRoot() && include == nil {
			e.content.sweep()
		}
	}
	if err := g.failed(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.FilesOnly {
		res.Counts = r.out.counts
		slices.SortFunc(res.Counts, func(a, b FileCount) int { return comparePaths(a.Path, b.Path) })
	} else {
		res.Lines, res.Shown = r.format()
	}
	res.Total, res.Files, res.Searched = r.out.total, r.out.files, int(r.searched.Load())
	return res, nil
}

// memoryGrep searches the texts the Texts source holds, reading from disk
// only the files it does not hold. The texts go to the workers in small
// batches as the source reports them: at 100,000 notes a list of every
// text, built and thrown away on each call, cost more than the search.
func (e *Engine) memoryGrep(ctx context.Context, g *guard, r *grepRun, dir vault.Path, wanted func(string) bool) bool {
	if e.texts == nil || e.inSkipped(dir.Rel) {
		return false
	}
	var others []string
	if e.files != nil {
		var ok bool
		if others, ok = e.otherFiles(dir.Rel); !ok {
			return false
		}
	}
	q := e.startWorkers(ctx, g, r)
	scope := e.scope(ctx)
	ok := e.texts.Texts(dir.Rel, func(rel string, content []byte) bool {
		if scope.Visible(rel) && wanted(rel) && (content != nil || !knownBinary(rel)) {
			q.add(rel, content)
		}
		return ctx.Err() == nil
	})
	if ok {
		for _, rel := range others {
			if under(rel, dir.Rel) && scope.Visible(rel) && wanted(rel) {
				q.add(rel, nil)
			}
		}
	}
	q.wait()
	return ok
}

// textBatch is how many texts travel to a worker together: enough to keep
// channel operations off the per-file path, few enough to spread a small
// folder over the workers.
const textBatch = 32

// textItem is one file to search: its text, or nil to read it from disk.
type textItem struct {
	rel     string
	content []byte
}

// textQueue hands texts to a search's workers in batches, recycling the
// batches so a search allocates a handful of them however large the vault.
type textQueue struct {
	batches chan []textItem
	free    chan []textItem
	cur     []textItem
	wg      sync.WaitGroup
}

// startWorkers starts e.workers goroutines searching what is added to the
// returned queue; wait ends them.
func (e *Engine) startWorkers(ctx context.Context, g *guard, r *grepRun) *textQueue {
	q := &textQueue{
		batches: make(chan []textItem, 2*e.workers),
		free:    make(chan []textItem, 3*e.workers+1),
	}
	for range e.workers {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			for batch := range q.batches {
				if ctx.Err() == nil {
					r.searchBatch(g, e.v.Root(), batch)
				}
				select {
				case q.free <- batch[:0]:
				default:
				}
			}
		}()
	}
	return q
}

func (q *textQueue) add(rel string, content []byte) {
	if q.cur == nil {
		select {
		case q.cur = <-q.free:
		default:
			q.cur = make([]textItem, 0, textBatch)
		}
	}
	q.cur = append(q.cur, textItem{rel, content})
	if len(q.cur) == textBatch {
		q.batches <- q.cur
		q.cur = nil
	}
}

// wait hands over the last batch and waits for the workers to finish.
func (q *textQueue) wait() {
	if len(q.cur) > 0 {
		q.batches <- q.cur
	}
	q.cur = nil
	close(q.batches)
	q.wg.Wait()
}

// searchBatch searches one batch of texts, reading those without content
// from disk (under root).
func (r *grepRun) searchBatch(g *guard, root string, batch []textItem) {
	defer g.catch()
	n := 0
	for _, it := range batch {
		if it.content == nil {
			r.fromDisk(fileRef{rel: it.rel, abs: filepath.Join(root, filepath.FromSlash(it.rel))})
			continue
		}
		r.searchText(it.rel, it.content, false)
		n++
	}
	r.searched.Add(int64(n))
}

// grepRun is the state of one Grep call, shared by its workers.
type grepRun struct {
	e        *Engine
	m        *matcher
	context  int
	searched atomic.Int64
	out      collector
}

// fromDisk searches one file read through the content cache.
func (r *grepRun) fromDisk(f fileRef) {
	content, binary, _, err := r.e.content.load(f)
	if err != nil || binary {
		return
	}
	r.searched.Add(1)
	r.searchText(f.rel, content, true)
}

// searchText searches one text; checked says it is known not to be
// binary. The caller counts it in searched.
func (r *grepRun) searchText(rel string, content []byte, checked bool) {
	hits := r.m.lines(content, nil)
	if len(hits) == 0 || (!checked && isBinary(content)) {
		return
	}
	r.out.add(&fileHits{rel: rel, content: content, hits: hits})
}

// fileHits is the matching lines of one file.
type fileHits struct {
	rel     string
	content []byte
	hits    []hit
}

// collector gathers per-file results arriving in any order and keeps only
// the files that can be shown: the fewest files, in path order, that hold
// limit matching lines (offset of which are skipped when shown). The rest
// are only counted, so memory stays bounded however much matches. With
// countOnly it keeps every file's count and no lines.
type collector struct {
	limit, offset int
	countOnly     bool
	counts        []FileCount

	mu           sync.Mutex
	kept         hitsHeap // max-heap by path
	keptHits     int
	total, files int
}

func (c *collector) add(f *fileHits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(f.hits)
	c.files++
	if c.countOnly {
		c.counts = append(c.counts, FileCount{Path: f.rel, Lines: len(f.hits)})
		return
	}
	if c.keptHits >= c.limit && len(c.kept) > 0 && comparePaths(f.rel, c.kept[0].rel) > 0 {
		return
	}
	heap.Push(&c.kept, f)
	c.keptHits += len(f.hits)
	for len(c.kept) > 1 && c.keptHits-len(c.kept[0].hits) >= c.limit {
		last := heap.Pop(&c.kept).(*fileHits)
		c.keptHits -= len(last.hits)
	}
}

type hitsHeap []*fileHits

func (h hitsHeap) Len() int           { return len(h) }
func (h hitsHeap) Less(i, j int) bool { return comparePaths(h[i].rel, h[j].rel) > 0 }
func (h hitsHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitsHeap) Push(x any)        { *h = append(*h, x.(*fileHits)) }
func (h *hitsHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// format renders the kept files' matches, in path order, from the
// offset up to the limit, with context lines.
func (r *grepRun) format() ([]Line, int) {
	files := slices.Clone(r.out.kept)
	slices.SortFunc(files, func(a, b *fileHits) int { return comparePaths(a.rel, b.rel) })
	var out []Line
	seen, shown := 0, 0
	for _, f := range files {
		if seen >= r.out.limit {
			break
		}
		hits := f.hits[:min(len(f.hits), r.out.limit-seen)]
		seen += len(hits)
		first := min(max(r.out.offset-(seen-len(hits)), 0), len(hits))
		hits = hits[first:]
		shown += len(hits)
		if len(hits) > 0 {
			out = r.formatFile(out, f, first, hits)
		}
	}
	if len(out) > 0 {
		out[0].Break = false
	}
	return out, shown
}

// formatFile appends one file's matches with their context; hits are
// f.hits[first:first+len(hits)].
func (r *grepRun) formatFile(out []Line, f *fileHits, first int, hits []hit) []Line {
	text := f.content
	last := 0 // number of the last line printed
	for i, h := range hits {
		var before []hit
		s := h.start
		for k := 0; k < r.context && s > 0 && h.num-k-1 > last; k++ {
			end := s - 1
			start := 0
			if j := bytes.LastIndexByte(text[:end], '\n'); j >= 0 {
				start = j + 1
			}
			before = append(before, hit{num: h.num - k - 1, start: start, end: end})
			s = start
		}
		slices.Reverse(before)
		group := h.num
		if len(before) > 0 {
			group = before[0].num
		}
		brk := r.context > 0 && (last == 0 || group > last+1)
		for _, b := range before {
			out = append(out, Line{Path: f.rel, Num: b.num, Text: r.lineText(text[b.start:b.end], false), Break: brk})
			brk = false
		}
		out = append(out, Line{Path: f.rel, Num: h.num, Text: r.lineText(text[h.start:h.end], true), Match: true, Break: brk})
		last = h.num
		stop := h.num + r.context
		if next := first + i + 1; next < len(f.hits) {
			stop = min(stop, f.hits[next].num-1)
		}
		for e := h.end; last < stop && e+1 < len(text); {
			start := e + 1
			e = lineEnd(text, start)
			last++
			out = append(out, Line{Path: f.rel, Num: last, Text: r.lineText(text[start:e], false)})
		}
	}
	return out
}

// lineText renders a line for output, shortened around the match when
// it is long.
func (r *grepRun) lineText(line []byte, match bool) string {
	line = stripCR(line)
	if len(line) <= maxLineBytes {
		return string(line)
	}
	ms, me := 0, 0
	if match && r.m.loose != nil {
		if s, e := r.m.loose.index(line); s >= 0 {
			ms, me = s, e
		}
	} else if match {
		if loc := r.m.ref.FindIndex(line); loc != nil {
			ms, me = loc[0], loc[1]
		}
	}
	return window(line, ms, me)
}

// window cuts a long line to about maxLineBytes around [ms, me), on rune
// boundaries, marking the cuts with "…".
func window(line []byte, ms, me int) string {
	begin := max(0, ms-windowBefore)
	end := min(len(line), max(begin+maxLineBytes, min(me, begin+2*maxLineBytes)))
	for begin > 0 && !utf8.RuneStart(line[begin]) {
		begin--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	var b strings.Builder
	if begin > 0 {
		b.WriteString("…")
	}
	b.Write(line[begin:end])
	if end < len(line) {
		b.WriteString("…")
	}
	return b.String()
}

// binaryExts are extensions of files that are never text; grep does not
// even open them.
var binaryExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true, ".ico": true,
	".tif": true, ".tiff": true, ".heic": true, ".avif": true, ".pdf": true, ".zip": true, ".gz": true,
	".tgz": true, ".7z": true, ".rar": true, ".mp3": true, ".m4a": true, ".wav": true, ".ogg": true,
	".flac": true, ".mp4": true, ".mov": true, ".webm": true, ".mkv": true, ".avi": true, ".woff": true,
	".woff2": true, ".ttf": true, ".otf": true, ".exe": true, ".dll": true, ".so": true, ".dylib": true,
	".sqlite": true, ".db": true, ".psd": true, ".epub": true, ".docx": true, ".xlsx": true, ".pptx": true,
}

func knownBinary(rel string) bool {
	ext := path.Ext(rel)
	if ext == "" {
		return false
	}
	return binaryExts[strings.ToLower(ext)]
}
