package rank

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"vaultmcp/internal/topk"
	"vaultmcp/vault/markdown"
	"vaultmcp/vault/pattern"
)

// Query is one search.
type Query struct {
	// Text is the search: words (any may match; notes matching more, and
	// in their names, headings, aliases and tags, rank higher), +word
	// (must occur), -word (must not occur), and "quoted words" (every
	// one must occur). A trailing * matches words starting so (proj*).
	Text   string
	Limit  int // 0 means DefaultLimit
	Offset int
}

// DefaultLimit is how many results a search returns unless asked.
const DefaultLimit = 10

// Hit is one matching note.
type Hit struct {
	Path    string
	Score   float64
	Snippet string // the best matching line of the note, shortened
	Line    int    // its 1-based line number; 0 when the match is only in the name, aliases or tags
}

// Result is one page of hits.
type Result struct {
	Total int // notes matching, over all pages
	Hits  []Hit
}

// Error is a query that cannot be run, phrased for the client.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// maxPrefixTerms caps how many words one prefix* stands for.
const maxPrefixTerms = 64

// clause is one part of a parsed query: alternatives for one word (a
// prefix expands to several), and whether it is required or excluded.
type clause struct {
	terms    []string
	must     bool
	not      bool
	prefix   string // for prefix*, expanded against the dictionary
	original string
}

// parse splits the query text into clauses.
func parse(text string) []clause {
	var out []clause
	for len(text) > 0 {
		text = strings.TrimLeft(text, " \t\r\n")
		if text == "" {
			break
		}
		must, not := false, false
		switch text[0] {
		case '+':
			must, text = true, text[1:]
		case '-':
			not, text = true, text[1:]
		}
		var word string
		if strings.HasPrefix(text, `"`) {
			end := strings.IndexByte(text[1:], '"')
			if end < 0 {
				word, text = text[1:], ""
			} else {
				word, text = text[1:1+end], text[2+end:]
			}
			if !not {
				must = true
			}
		} else {
			end := strings.IndexAny(text, " \t\r\n")
			if end < 0 {
				end = len(text)
			}
			word, text = text[:end], text[end:]
		}
		prefix := strings.HasSuffix(word, "*")
		var terms []string
		tokens(strings.TrimSuffix(word, "*"), func(t string) { terms = append(terms, t) })
		for i, t := range terms {
			c := clause{terms: []string{t}, must: must, not: not, original: word}
			if prefix && i == len(terms)-1 {
				c.prefix, c.terms = t, nil
			}
			out = append(out, c)
		}
	}
	return out
}

// Search ranks the notes matching q. It waits for the first build.
func (s *Searcher) Search(ctx context.Context, q Query) (Result, error) {
	if err := pattern.CheckLength("query", q.Text, pattern.MaxQuery); err != nil {
		return Result{}, &Error{Msg: err.Error() + ": search for fewer words"}
	}
	clauses := parse(q.Text)
	positive := false
	for _, c := range clauses {
		if !c.not {
			positive = true
		}
	}
	if !positive {
		return Result{}, &Error{Msg: "query has no words to search for (use letters or digits; -word only excludes)"}
	}
	if q.Offset < 0 {
		return Result{}, &Error{Msg: "offset must not be negative"}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if err := s.wait(ctx); err != nil {
		return Result{}, err
	}
	hits, total, err := s.rank(ctx, clauses, q.Offset+limit)
	if err != nil {
		return Result{}, err
	}
	res := Result{Total: total, Hits: []Hit{}}
	if q.Offset < len(hits) {
		res.Hits = hits[q.Offset:]
	}
	terms := map[string]bool{}
	for _, c := range clauses {
		if c.not {
			continue
		}
		for _, t := range c.terms {
			terms[t] = true
		}
	}
	for i := range res.Hits {
		h := &res.Hits[i]
		m, ok, err := s.src.Note(ctx, h.Path)
		if err != nil {
			return Result{}, err
		}
		if ok {
			h.Snippet, h.Line = snippet(m.Content, terms)
		}
	}
	return res, nil
}

// rank scores every note against the clauses and returns the best n,
// with the number of notes that matched at all.
func (s *Searcher) rank(ctx context.Context, clauses []clause, n int) ([]Hit, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return nil, 0, err
	}
	st := s.st
	for i := range clauses {
		if c := &clauses[i]; c.prefix != "" {
			for term := range st.terms {
				if strings.HasPrefix(term, c.prefix) {
					c.terms = append(c.terms, term)
				}
			}
			slices.Sort(c.terms)
			if len(c.terms) > maxPrefixTerms {
				c.terms = c.terms[:maxPrefixTerms]
			}
		}
	}
	N := max(st.live, 1)
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(st.sumLen[f]/float64(N), 1)
	}
	sc := &s.scratch
	sc.scores = resize(sc.scores, len(st.docs))
	// must counts the required clauses each document met; excluded
	// documents get 255.
	musts := 0
	for _, c := range clauses {
		if c.must {
			musts++
		}
	}
	var must []uint8
	if musts > 0 || slices.ContainsFunc(clauses, func(c clause) bool { return c.not }) {
		sc.must = resize(sc.must, len(st.docs))
		must = sc.must
	}
	for _, c := range clauses {
		var seen map[uint32]bool // a required prefix* counts once per note
		if c.must && len(c.terms) > 1 {
			seen = map[uint32]bool{}
		}
		for _, term := range c.terms {
			k, ok := st.terms[term]
			if !ok {
				continue
			}
			// The live postings give the exact document frequency;
			// a list mostly dead is rewritten on the way.
			live, dead := st.livePostings(k, sc.live[:0])
			sc.live = live
			if dead > len(live) {
				st.compact(k, live)
			}
			w := idf(N, len(live))
			for _, e := range live {
				id := e.id
				if c.not {
					must[id] = 255
					continue
				}
				if c.must && must[id] != 255 && (seen == nil || !seen[id]) {
					if seen != nil {
						seen[id] = true
					}
					must[id]++
				}
				d := &st.docs[id]
				tf := 0.0
				for f := range numFields {
					if e.freq[f] > 0 {
						tf += weights[f] * float64(e.freq[f]) / (1 - b + b*float64(d.lens[f])/avg[f])
					}
				}
				sc.scores[id] += float32(w * tf / (k1 + tf))
			}
		}
	}
	found := sc.found[:0]
	// Notes the request's access scope hides are not found.
	scope := s.src.Scope(ctx)
	hides := scope.Hides()
	for id, score := range sc.scores {
		if score <= 0 || st.docs[id].path == "" || hides && !scope.Visible(st.docs[id].path) {
			continue
		}
		if must != nil && (must[id] == 255 || int(must[id]) < musts) {
			continue
		}
		found = append(found, scored{uint32(id), score})
	}
	sc.found = found
	// Best first; equal scores by path, so pages are stable.
	topk.Sort(found, min(n, len(found)), func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(st.docs[a.id].path, st.docs[b.id].path)
	})
	hits := make([]Hit, 0, min(n, len(found)))
	for _, f := range found[:min(n, len(found))] {
		hits = append(hits, Hit{Path: st.docs[f.id].path, Score: math.Round(float64(f.score)*1000) / 1000})
	}
	return hits, len(found), nil
}

// scored is a matching document and its score.
type scored struct {
	id    uint32
	score float32
}

// scratch holds a search's working buffers, reused from search to
// search under Searcher.mu: a search over a large vault touches a value
// per note, and allocating those anew each time shows.
type scratch struct {
	scores []float32
	must   []uint8
	live   []posting
	found  []scored
}

// resize returns buf with n zeroed elements, reusing its memory.
func resize[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// posting is one decoded entry of a postings list.
type posting struct {
	id   uint32
	freq [numFields]uint32
}

// livePostings decodes term k's list into buf, leaving out dead
// documents, and counts those.
func (st *state) livePostings(k int32, buf []posting) ([]posting, int) {
	dead := 0
	decode(&st.posts[k], func(id uint32, freq *[numFields]uint32) {
		if st.docs[id].path == "" {
			dead++
			return
		}
		buf = append(buf, posting{id, *freq})
	})
	return buf, dead
}

// compact rewrites term k's list with only the live postings.
func (st *state) compact(k int32, live []posting) {
	p := postings{}
	for _, e := range live {
		p.append(e.id, &e.freq)
	}
	st.posts[k] = p
}

// decode walks a postings list.
func decode(p *postings, fn func(id uint32, freq *[numFields]uint32)) {
	buf := p.buf
	var id uint32
	var freq [numFields]uint32
	for len(buf) > 0 {
		delta, k := binary.Uvarint(buf)
		buf = buf[k:]
		id += uint32(delta)
		mask := buf[0]
		buf = buf[1:]
		for f := range numFields {
			freq[f] = 0
			if mask&(1<<f) != 0 {
				v, k := binary.Uvarint(buf)
				buf = buf[k:]
				freq[f] = uint32(v)
			}
		}
		fn(id, &freq)
	}
}

// snippetBytes is about how long a snippet is.
const snippetBytes = 200

// snippet picks the body line holding the most query terms (the first
// such line) and shortens it around the first match. It runs for every
// hit shown, over the whole note, so it tokenizes the lines in place with
// one scanner and counts each line's distinct terms without allocating.
func snippet(content []byte, terms map[string]bool) (string, int) {
	offset := 0
	if _, _, body, ok := markdown.FrontmatterBounds(content); ok {
		offset = body
	}
	// Each query term gets a number; seenOn[k] is the line on which term
	// k was last counted.
	ids := make(map[string]int, len(terms))
	for t, on := range terms {
		if on {
			ids[t] = len(ids)
		}
	}
	seenOn := make([]int, len(ids))
	var sc scanner
	lineNo := 1 + bytes.Count(content[:offset], []byte{'\n'})
	var best, first []byte
	bestLine, bestScore, score := 0, 0, 0
	count := func(t []byte, _ int) {
		if k, ok := ids[string(t)]; ok && seenOn[k] != lineNo {
			seenOn[k] = lineNo
			score++
		}
	}
	rest := content[offset:]
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			if first == nil {
				first = text
			}
			score = 0
			sc.scan(text, count)
			if score > bestScore {
				best, bestLine, bestScore = text, lineNo, score
			}
		}
		lineNo++
	}
	if bestScore == 0 {
		// The match is in the name, aliases or tags: show how the
		// note begins.
		return shorten(string(first), 0), 0
	}
	// Centre on the first matching word.
	text := string(best)
	at := 0
	tokensAt(text, func(t string, pos int) bool {
		if terms[t] {
			at = pos
			return false
		}
		return true
	})
	return shorten(text, at), bestLine
}

// tokensAt is tokens with the byte offset of the word each term comes
// from; fn returns false to stop.
func tokensAt(text string, fn func(term string, pos int) bool) {
	var sc scanner
	stop := false
	sc.scan([]byte(text), func(t []byte, pos int) {
		if !stop && !fn(string(t), pos) {
			stop = true
		}
	})
}

// shorten cuts text to about snippetBytes around byte offset at, on rune
// boundaries, marking cuts with "…".
func shorten(text string, at int) string {
	if len(text) <= snippetBytes {
		return text
	}
	start := max(0, at-snippetBytes/3)
	end := min(len(text), start+snippetBytes)
	if end == len(text) {
		start = max(0, end-snippetBytes)
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	out := text[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

// Title is the name a note is searched by: its file name without the
// extension.
func Title(rel string) string {
	return strings.TrimSuffix(path.Base(rel), path.Ext(rel))
}
