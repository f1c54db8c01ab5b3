package rank

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"vaultmcp/vault/access"
	"vaultmcp/vault/index"
	"vaultmcp/vault/markdown"
)

// Fields of a note, each with its own term frequencies, lengths and
// weight.
const (
	fieldTitle = iota
	fieldAliases
	fieldHeadings
	fieldTags
	fieldBody
	numFields
)

// weights are the field boosts: a term in a note's name says more about
// the note than one in its body.
var weights = [numFields]float64{fieldTitle: 4, fieldAliases: 3, fieldHeadings: 2, fieldTags: 2, fieldBody: 1}

// BM25 parameters (the usual ones).
const (
	k1 = 1.2
	b  = 0.75
)

// Source is what the search index is built from: the live vault index.
type Source interface {
	Wait(ctx context.Context) error
	Generation() uint64
	EachNote(ctx context.Context, fn func(m *index.NoteMeta) bool) error
	Note(ctx context.Context, rel string) (index.NoteMeta, bool, error)
	// Scope is the request's access scope as answers from the source
	// must apply it (see index.Index.Scope: a note that is a symbolic
	// link is hidden when its target is).
	Scope(ctx context.Context) *access.Scope
}

var _ Source = (*index.Index)(nil)

// Searcher answers ranked searches over a vault. Create it with New,
// start it with Start (or let the first search build it); it is safe for
// concurrent use.
type Searcher struct {
	src Source
	log *slog.Logger

	startOnce sync.Once
	ready     chan struct{}
	buildErr  error

	mu sync.Mutex
	st *state
	// rebuilding: a background rebuild is running; it will install a
	// fresh state.
	rebuilding bool
	scratch    scratch
	// rebuildAt is how many dead documents (at least a quarter of the
	// live ones) start a rebuild; 0 means 1,000.
	rebuildAt int
	// yield, when set, is called between slices of a build (see
	// SetYield).
	yield func()
}

// state is one inverted index. Document numbers only grow: a changed
// note gets a new one, and its old postings are skipped as dead.
type state struct {
	gen    uint64 // the vault index generation this state reflects
	docs   []doc
	byPath map[string]uint32
	terms  map[string]int32 // term -> index into postings
	posts  []postings
	live   int
	sumLen [numFields]float64 // over live documents
	epoch  uint32
	// slot and owner, by term, find a term's counts while a note is
	// added: slot is valid when owner is the note's number plus one.
	slot  []int32
	owner []uint32
}

// doc is one note as the search index knows it.
type doc struct {
	path  string // "" when dead
	seq   uint64
	lens  [numFields]uint32
	epoch uint32 // last sync that saw the note
}

// postings is one term's list: for each document, its number (as a
// delta from the previous, varint) and a field mask byte followed by a
// varint frequency per field in the mask.
type postings struct {
	buf  []byte
	last uint32 // last document number in buf
	n    uint32 // documents listed, dead ones included
}

// New returns a searcher over src. Nothing is read until Start or the
// first search.
func New(src Source, logger *slog.Logger) *Searcher {
	if logger == nil {
		logger = slog.Default()
	}
	return &Searcher{src: src, log: logger, ready: make(chan struct{})}
}

// SetYield sets a function a build calls between slices of notes (a few
// milliseconds of work each), before Start. It lets the build give way:
// given one that waits while a vault change is under way, a build of
// 100,000 notes (seconds of CPU, and the garbage collection it causes)
// no longer competes for the cores with a change that is kept waiting
// for its answer, such as a rename relinking thousands of notes. The
// function must not wait on a search.
func (s *Searcher) SetYield(fn func()) { s.yield = fn }

// Start builds the index in the background once the vault index is
// ready, so start-up is never held up by it.
func (s *Searcher) Start(ctx context.Context) {
	s.startOnce.Do(func() { go s.build(ctx) })
}

func (s *Searcher) build(ctx context.Context) {
	defer close(s.ready)
	if err := s.src.Wait(ctx); err != nil {
		s.buildErr = err
		return
	}
	start := time.Now()
	st, err := buildState(ctx, s.src, s.yield)
	if err != nil {
		s.buildErr = err
		s.log.Error("search index build failed", "err", err)
		return
	}
	s.mu.Lock()
	s.st = st
	s.mu.Unlock()
	s.log.Info("search index built", "notes", st.live, "terms", len(st.terms), "took", time.Since(start).Round(time.Millisecond))
}

// wait starts the build if nobody did and waits for it.
func (s *Searcher) wait(ctx context.Context) error {
	s.Start(context.WithoutCancel(ctx))
	select {
	case <-s.ready:
		return s.buildErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// snapshot is what a build or sync reads of one note.
type snapshot struct {
	path    string
	seq     uint64
	content []byte
	tags    []string
	aliases []string
}

func snapOf(m *index.NoteMeta) snapshot {
	sn := snapshot{path: m.Path, seq: m.Seq, content: m.Content, tags: m.Tags}
	for _, p := range m.Properties {
		if strings.EqualFold(p.Key, "aliases") || strings.EqualFold(p.Key, "alias") {
			sn.aliases = append(sn.aliases, p.Values...)
		}
	}
	return sn
}

// buildState indexes every note of src from scratch. The notes are
// copied out under the vault index's lock and tokenized after it.
func buildState(ctx context.Context, src Source, yield func()) (*state, error) {
	if yield != nil {
		yield() // the copy below is a tenth of the build
	}
	gen := src.Generation()
	var notes []snapshot
	err := src.EachNote(ctx, func(m *index.NoteMeta) bool {
		notes = append(notes, snapOf(m))
		return true
	})
	if err != nil {
		return nil, err
	}
	st := &state{gen: gen, byPath: make(map[string]uint32, len(notes)), terms: map[string]int32{}, docs: make([]doc, 0, len(notes))}
	var tf termFreqs
	for i := range notes {
		if i%256 == 0 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if yield != nil {
				yield()
			}
		}
		st.add(&notes[i], &tf)
	}
	return st, nil
}

// termFreqs counts one note's terms per field; reused from note to note.
type termFreqs struct {
	sc    scanner
	order []int32 // the note's distinct terms, in order of appearance
	freq  [][numFields]uint32
}

func (tf *termFreqs) reset() {
	tf.order, tf.freq = tf.order[:0], tf.freq[:0]
}

// term returns the number of a term, adding it to the dictionary. Only a
// term new to the whole vault costs an allocation.
func (st *state) term(t []byte) int32 {
	if k, ok := st.terms[string(t)]; ok {
		return k
	}
	k := int32(len(st.posts))
	st.terms[string(t)] = k
	st.posts = append(st.posts, postings{})
	st.slot = append(st.slot, 0)
	st.owner = append(st.owner, 0)
	return k
}

// add indexes one note under a new document number.
func (st *state) add(sn *snapshot, tf *termFreqs) {
	tf.reset()
	var lens [numFields]uint32
	var field int
	id := uint32(len(st.docs))
	count := func(t []byte, _ int) {
		k := st.term(t)
		if st.owner[k] != id+1 {
			st.owner[k], st.slot[k] = id+1, int32(len(tf.order))
			tf.order = append(tf.order, k)
			tf.freq = append(tf.freq, [numFields]uint32{})
		}
		tf.freq[st.slot[k]][field]++
		lens[field]++
	}
	scan := func(f int, text []byte) {
		field = f
		tf.sc.scan(text, count)
	}
	scan(fieldTitle, []byte(Title(sn.path)))
	for _, a := range sn.aliases {
		scan(fieldAliases, []byte(a))
	}
	for _, t := range sn.tags {
		scan(fieldTags, []byte(t))
	}
	eachLine(sn.content, func(heading bool, line []byte) {
		if heading {
			scan(fieldHeadings, line)
		} else {
			scan(fieldBody, line)
		}
	})

	st.docs = append(st.docs, doc{path: sn.path, seq: sn.seq, lens: lens, epoch: st.epoch})
	st.byPath[sn.path] = id
	st.live++
	for f := range numFields {
		st.sumLen[f] += float64(lens[f])
	}
	for i, k := range tf.order {
		st.posts[k].append(id, &tf.freq[i])
	}
}

// append adds document id (greater than any listed) with its per-field
// frequencies.
func (p *postings) append(id uint32, freq *[numFields]uint32) {
	var tmp [binary.MaxVarintLen32*(numFields+1) + 1]byte
	enc := binary.AppendUvarint(tmp[:0], uint64(id-p.last))
	mask := len(enc)
	enc = append(enc, 0)
	for f := range numFields {
		if freq[f] > 0 {
			enc[mask] |= 1 << f
			enc = binary.AppendUvarint(enc, uint64(freq[f]))
		}
	}
	p.buf = append(p.buf, enc...)
	p.last = id
	p.n++
}

// remove marks a document dead.
func (st *state) remove(id uint32) {
	d := &st.docs[id]
	if d.path == "" {
		return
	}
	delete(st.byPath, d.path)
	for f := range numFields {
		st.sumLen[f] -= float64(d.lens[f])
	}
	d.path = ""
	st.live--
}

func (st *state) dead() int { return len(st.docs) - st.live }

// eachLine calls fn with each line of a note's body (frontmatter left
// out), saying whether it is a heading. A "#" line inside a fenced code
// block is body text.
func eachLine(content []byte, fn func(heading bool, line []byte)) {
	if _, _, bodyStart, ok := markdown.FrontmatterBounds(content); ok {
		content = content[bodyStart:]
	}
	var fence []byte
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		t := bytes.TrimLeft(line, " \t")
		switch {
		case fence != nil:
			if bytes.HasPrefix(t, fence) {
				fence = nil
			}
		case bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~")):
			fence = t[:3]
		case len(t) > 1 && t[0] == '#' && headingLine(t):
			fn(true, t)
			continue
		}
		fn(false, line)
	}
}

// headingLine reports whether t (leading spaces removed) is an ATX
// heading: 1 to 6 '#' followed by a space or the end.
func headingLine(t []byte) bool {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// sync brings st up to date with the vault index: notes whose Seq
// changed are re-indexed, notes gone are marked dead. Caller holds s.mu.
func (s *Searcher) sync(ctx context.Context) error {
	st := s.st
	gen := s.src.Generation()
	if gen == st.gen {
		return nil
	}
	st.epoch++
	var changed []snapshot
	err := s.src.EachNote(ctx, func(m *index.NoteMeta) bool {
		if id, ok := st.byPath[m.Path]; ok && st.docs[id].seq == m.Seq {
			st.docs[id].epoch = st.epoch
			return true
		}
		changed = append(changed, snapOf(m))
		return true
	})
	if err != nil {
		return err
	}
	for id := range st.docs {
		if d := &st.docs[id]; d.path != "" && d.epoch != st.epoch {
			st.remove(uint32(id))
		}
	}
	var tf termFreqs
	for i := range changed {
		if id, ok := st.byPath[changed[i].path]; ok {
			st.remove(id)
		}
		st.add(&changed[i], &tf)
	}
	st.gen = gen
	at := s.rebuildAt
	if at == 0 {
		at = 1000
	}
	if !s.rebuilding && st.dead() > at && st.dead() > st.live/4 {
		s.rebuilding = true
		go s.rebuild(context.WithoutCancel(ctx))
	}
	return nil
}

// rebuild replaces a state full of dead postings with a fresh one, built
// without holding up searches.
func (s *Searcher) rebuild(ctx context.Context) {
	st, err := buildState(ctx, s.src, s.yield)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebuilding = false
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.log.Warn("search index rebuild failed", "err", err)
		}
		return
	}
	s.st = st
}

// idf is BM25's inverse document frequency.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}
