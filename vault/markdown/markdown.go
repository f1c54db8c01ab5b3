// Package markdown parses one Obsidian note: its YAML frontmatter, the links
// it makes (wikilinks, embeds, Markdown links to local files), its tags,
// aliases, headings and block ids.
//
// It is a hand-written scanner rather than a full Markdown parser: the live
// index parses every note of the vault on start, so speed matters more than
// an AST (BenchmarkParseBody against BenchmarkGoldmarkParse: the scanner
// does the whole job about three times faster than goldmark only builds its
// tree). The scanner still follows CommonMark where it decides what is code
// (fenced and indented code blocks, code spans), which is where links must
// not be found; differential tests hold it to goldmark's view of code, links
// and headings, down to goldmark's own quirks. On top of CommonMark it knows
// Obsidian's syntax: %%comments%%, $math$ and $$math$$, wikilinks, #tags,
// ^block-ids and footnotes. Raw HTML blocks carry no links (Obsidian does not
// render Markdown inside them).
//
// Frontmatter is YAML, and yaml.v3's reading of it is the reference: the
// shapes most notes use (scalars, quoted strings, dates, lists of tags and
// aliases, nested mappings) are read by a small exact subset parser that
// gives up on anything else, and yaml.v3 reads what it gives up on;
// differential and fuzz tests hold the two to the same answers.
//
// All strings in a Note are slices of one copy of the source, so a Note keeps
// that copy alive as long as any of its strings is referenced.
package markdown

import (
	"bytes"
	"sync"
	"unsafe"

	"go.yaml.in/yaml/v3"
)

// Note is what one Markdown file says about itself and about other notes.
type Note struct {
	// Frontmatter is the YAML mapping between the opening and closing ---
	// lines; nil when the note has none (or it does not parse), empty when
	// the block is empty.
	Frontmatter map[string]any
	// FrontmatterErr says why a frontmatter block could not be read; the
	// rest of the note is parsed all the same.
	FrontmatterErr error
	// BodyOffset is the byte offset where the body starts, after the
	// frontmatter's closing line (0 without frontmatter).
	BodyOffset int
	// Links are wikilinks, embeds and Markdown links to local files, in
	// source order, starting with the wikilinks of frontmatter properties.
	Links []Link
	// Tags are the frontmatter tags followed by the inline #tags, in source
	// order, spelled as written (without '#').
	Tags []Tag
	// Aliases are the frontmatter aliases (aliases: or alias:).
	Aliases []string
	// Headings are the note's headings outside block quotes and callouts
	// (Obsidian does not link to those).
	Headings []Heading
	// BlockIDs are the ^ids that end paragraphs and list items, without '^'.
	BlockIDs []string
	// BlockLines holds the 1-based line where each of BlockIDs is written,
	// and BlockStarts the line where the paragraph it ends begins, so an
	// editor can find the block an id marks.
	BlockLines, BlockStarts []int

	// props is the frontmatter's YAML mapping node when yaml.v3 read it,
	// fmText its text when the fast path did: Properties reads either.
	props  *yaml.Node
	fmText string
}

// Style says how a link is written, so a rewrite can keep it.
type Style uint8

const (
	// Wiki is [[target#heading|alias]] (or ![[…]]).
	Wiki Style = iota
	// Markdown is [text](percent%20encoded.md) (or ![alt](…)).
	Markdown
	// MarkdownAngle is [text](<destination with spaces.md>).
	MarkdownAngle
)

// String names the style for logs and JSON.
func (s Style) String() string {
	switch s {
	case Wiki:
		return "wiki"
	case Markdown:
		return "markdown"
	case MarkdownAngle:
		return "markdown-angle"
	}
	return "unknown"
}

// Link is one link in a note, with enough of its spelling kept to rewrite
// it when its target is renamed.
type Link struct {
	// Raw is the text between [[ and ]] as written ("Project Ideas|Ideas"),
	// or a Markdown link's destination as written (without <>).
	Raw string
	// Target is the path or name part, unescaped: "folder/Note", "Note.md",
	// "a b.md" for [t](a%20b.md), "" for [[#Heading]]. Resolving it to a
	// file is the index's job.
	Target string
	// Heading is the part after '#' ("H1#H2" for nested headings).
	Heading string
	// Block is the id of [[Note#^id]], without '^'.
	Block string
	// Alias is the display text: [[Note|alias]], or a Markdown link's text
	// as written.
	Alias string
	// Embed is set for ![[…]] and ![](…).
	Embed bool
	// Style is how the link is written.
	Style Style
	// Start and End are the byte offsets of the whole link in the source
	// (including a leading '!'), for rewriting it in place.
	Start, End int
	// Line is the 1-based line of Start.
	Line int
	// Frontmatter is set for a wikilink written in a frontmatter property
	// (up: "[[Parent]]"), which Obsidian counts as a link too.
	Frontmatter bool

	// before and after are the link's text around its target (both slices
	// of the note's source), for WithTarget.
	before, after string
}

// Tag is one tag of a note.
type Tag struct {
	// Name is the tag without '#', as spelled ("Project/Active").
	Name string
	// Line is the 1-based line where the tag is written.
	Line int
	// Frontmatter is set for tags listed in the frontmatter.
	Frontmatter bool
}

// Heading is one heading of a note.
type Heading struct {
	// Level is 1 to 6.
	Level int
	// Text is the heading as written, without the #s and surrounding
	// spaces; Obsidian links to it as [[Note#Text]].
	Text string
	// Line is the 1-based line where the heading starts.
	Line int
}

// Parse reads one note. It never fails and never panics: a malformed
// frontmatter is reported in Note.FrontmatterErr and the body is parsed
// anyway.
func Parse(src []byte) *Note {
	n := &Note{}
	parse(src, string(src), n)
	return n
}

// ParseShared is Parse without the copy: the Note's strings slice src
// itself, so src must never be modified while any of them is in use. The
// live index, which keeps every note's bytes unmodified anyway, parses
// this way: a copy per note would double the text it allocates at start,
// and copying out the strings it keeps would cost more still.
func ParseShared(src []byte) *Note {
	n := &Note{}
	ParseSharedInto(n, src)
	return n
}

// ParseSharedInto is ParseShared into n, which is overwritten: only the
// arrays behind n.Links, n.Tags and n.Headings are kept and filled again.
// A caller that parses notes one after another and keeps what it needs of
// each (strings included, which slice src) but not the Link, Tag and
// Heading slices themselves saves allocating them for each note: at a
// build of the index they are a sixth of what parsing allocates. n.Links,
// n.Tags and n.Headings may be empty rather than nil.
func ParseSharedInto(n *Note, src []byte) {
	str := ""
	if len(src) > 0 {
		str = unsafe.String(&src[0], len(src))
	}
	links, tags, headings := n.Links[:0], n.Tags[:0], n.Headings[:0]
	*n = Note{Links: links, Tags: tags, Headings: headings}
	parse(src, str, n)
}

// parsers recycles parser states: one is about 9 KB of first backing
// arrays, which the index's build would otherwise allocate and collect
// once per note.
var parsers = sync.Pool{New: func() any { return new(parser) }}

// maxKeptBuf bounds the inline scratch buffer a recycled parser keeps.
const maxKeptBuf = 64 << 10

// parse parses src (str is the same text as a string) into n, which is
// zero but for the arrays behind Links and Tags.
func parse(src []byte, str string, n *Note) {
	p := parsers.Get().(*parser)
	buf := p.buf[:0]
	if cap(buf) > maxKeptBuf {
		buf = nil
	}
	// Nothing of a previous note survives: every field starts zero, as a
	// new parser's would; only the scratch buffers' capacity is kept (no
	// string in a Note refers to them, and the fast YAML path's state is
	// emptied after each use).
	*p = parser{src: src, str: str, buf: buf, fy: p.fy}
	defer func() {
		p.src, p.str, p.note = nil, "", nil
		parsers.Put(p)
	}()
	p.stack = p.stackArr[:0]
	p.leaves, p.segs = p.leavesArr[:0], p.segsArr[:0]
	p.regions, p.mdLinks, p.brackets, p.bmap = p.regionsArr[:0], p.mdLinksArr[:0], p.bracketsArr[:0], p.bmapArr[:0]
	p.note = n
	// A new Note's results are sized once from cheap counts rather than
	// grown. A Note parsed into again (ParseSharedInto) keeps the arrays of
	// the notes before it, which grow to fit the largest: three scans of
	// every note to size them were a tenth of parsing it at a build.
	if cap(n.Links) == 0 {
		if k := bytes.Count(src, []byte("[[")) + bytes.Count(src, []byte("](")); k > 0 {
			n.Links = make([]Link, 0, k)
		}
	}
	if cap(n.Tags) == 0 {
		if k := min(bytes.Count(src, []byte{'#'}), 64); k > 0 {
			n.Tags = make([]Tag, 0, k)
		}
	}
	line := p.frontmatter()
	p.blocks(n.BodyOffset, line)
	p.inlines()
}

// parser holds the state of one Parse call.
type parser struct {
	src  []byte
	str  string // src as a string: every string in the Note slices it
	note *Note

	// block pass: the current line
	lineStart, lineEnd, lineNext int
	lineNo                       int
	offset, column               int
	nextNonspace                 int
	nextNonspaceColumn           int
	indent                       int
	indented, blank              bool
	partiallyConsumedTab         bool
	ns                           nonspaceRun
	allClosed                    bool
	lastMatched                  int
	emptyItemBlank               bool // goldmark: a blank line followed an empty list item
	tb                           tbScan
	stack                        []openBlock

	// block pass output
	leaves []leaf
	segs   []seg
	refs   map[string]struct{} // normalized labels of link reference definitions

	// inline passes, reused from leaf to leaf
	buf      []byte
	bmap     []bufSeg
	regions  []region
	mdLinks  []mdLink
	brackets []bracket
	// searches that failed in the current leaf, so they are not repeated
	noCloser     map[int]bool  // backtick run lengths with no closing run
	tickScan     int           // bytes scanned looking for closing runs
	ticks        map[int][]int // backtick runs by length, once tickScan is large
	htmlUnclosed [4]bool       // no "-->", "?>", ">" or "]]>" follows
	noMathClose  bool          // no closing $ follows

	// the fast frontmatter path's lines, tree and scratch
	fy fastYAML

	// Obsidian state that crosses blocks
	inComment bool // inside %% … %%
	inMath    bool // inside $$ … $$

	// first backing arrays of the slices above: one allocation for a
	// typical note
	stackArr    [8]openBlock
	leavesArr   [48]leaf
	segsArr     [96]seg
	regionsArr  [16]region
	mdLinksArr  [8]mdLink
	bracketsArr [16]bracket
	bmapArr     [16]bufSeg
}

// inlines runs the inline passes over every leaf, in document order.
func (p *parser) inlines() {
	for i := range p.leaves {
		lf := &p.leaves[i]
		if lf.kind == leafRemoved || lf.first == lf.last {
			continue
		}
		b := p.buffer(lf)
		p.pass1(b)
		p.pass2(lf, b)
	}
}
