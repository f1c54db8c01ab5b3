package markdown

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// goldmarkView is what goldmark (CommonMark) makes of a note's body, in
// offsets of the whole note.
type goldmarkView struct {
	code     [][2]int       // code block lines and code span contents
	dests    map[int]string // inline link start -> destination as written
	headings map[int]int    // line -> level
}

func viewOf(src []byte, bodyOffset int) goldmarkView {
	body := src[bodyOffset:]
	doc := goldmark.New().Parser().Parse(text.NewReader(body))
	v := goldmarkView{dests: map[int]string{}, headings: map[int]int{}}
	lineOf := func(pos int) int { return 1 + bytes.Count(src[:bodyOffset+pos], []byte{'\n'}) }
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				s := lines.At(i)
				v.code = append(v.code, [2]int{bodyOffset + s.Start, bodyOffset + s.Stop})
			}
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					v.code = append(v.code, [2]int{bodyOffset + t.Segment.Start, bodyOffset + t.Segment.Stop})
				}
			}
		case *ast.Link:
			if n.Reference == nil {
				v.dests[bodyOffset+n.Pos()] = string(n.Destination)
			}
		case *ast.Image:
			if n.Reference == nil {
				v.dests[bodyOffset+n.Pos()] = string(n.Destination)
			}
		case *ast.Heading:
			if n.Lines().Len() > 0 {
				v.headings[lineOf(n.Lines().At(0).Start)] = n.Level
			}
		}
		return ast.WalkContinue, nil
	})
	return v
}

func (v goldmarkView) inCode(from, to int) bool {
	for _, c := range v.code {
		if from < c[1] && c[0] < to {
			return true
		}
	}
	return false
}

// checkNote verifies the invariants of Parse on src, including the
// differential ones against goldmark.
func checkNote(t *testing.T, src []byte) {
	t.Helper()
	n := Parse(src)
	if n.BodyOffset < 0 || n.BodyOffset > len(src) {
		t.Fatalf("BodyOffset %d out of range", n.BodyOffset)
	}
	v := viewOf(src, n.BodyOffset)
	prev := -1
	for _, l := range n.Links {
		if l.End > len(src) || l.Start >= l.End || (l.Start < n.BodyOffset) != l.Frontmatter {
			t.Fatalf("link %+v: bad offsets (len %d, body at %d)", l, len(src), n.BodyOffset)
		}
		if l.Start < prev {
			t.Fatalf("link %+v: not in source order", l)
		}
		prev = l.Start
		if l.Line != 1+bytes.Count(src[:l.Start], []byte{'\n'}) {
			t.Fatalf("link %+v: wrong line", l)
		}
		written := string(src[l.Start:l.End])
		switch l.Style {
		case Wiki:
			want := "[["
			if l.Embed {
				want = "![["
			}
			if !strings.HasPrefix(written, want) || !strings.HasSuffix(written, "]]") {
				t.Fatalf("wikilink %+v written as %q", l, written)
			}
			if !strings.Contains(written, l.Raw) {
				t.Fatalf("wikilink %+v: Raw not in %q", l, written)
			}
			if got := l.WithTarget(l.Target); got != written {
				t.Fatalf("wikilink %q: WithTarget(Target) = %q", written, got)
			}
			if bytes.IndexByte(src[l.Start:l.End], '\n') >= 0 {
				t.Fatalf("wikilink %q spans lines", written)
			}
			if v.inCode(l.Start, l.End) {
				t.Fatalf("wikilink %q at %d lies in goldmark code %v", written, l.Start, v.code)
			}
		default:
			want := "["
			if l.Embed {
				want = "!["
			}
			if !strings.HasPrefix(written, want) || !strings.HasSuffix(written, ")") {
				t.Fatalf("markdown link %+v written as %q", l, written)
			}
			if v.inCode(l.Start, l.Start+1) || v.inCode(l.End-1, l.End) {
				t.Fatalf("markdown link %q at %d lies in goldmark code", written, l.Start)
			}
			// goldmark reads a footnote definition "[^1]: …" (which may
			// go on over the next lines) as a link reference definition and
			// never parses it as text: only check links with no "[^" before.
			footnote := bytes.Contains(src[:l.Start], []byte("[^"))
			if dest, ok := v.dests[l.Start]; !footnote && (!ok || dest != l.Raw) {
				t.Fatalf("markdown link %q at %d (Raw %q): goldmark has %q, %v", written, l.Start, l.Raw, dest, ok)
			}
		}
	}
	for _, tg := range n.Tags {
		if !ValidTag(tg.Name) {
			t.Fatalf("tag %+v is not a valid tag", tg)
		}
	}
	for _, h := range n.Headings {
		if lvl, ok := v.headings[h.Line]; !ok || lvl != h.Level {
			t.Fatalf("heading %+v: goldmark has level %d (%v) on that line", h, lvl, ok)
		}
	}
	if len(n.BlockLines) != len(n.BlockIDs) || len(n.BlockStarts) != len(n.BlockIDs) {
		t.Fatalf("%d block ids but %d block lines and %d starts", len(n.BlockIDs), len(n.BlockLines), len(n.BlockStarts))
	}
	for i := range n.BlockStarts {
		if n.BlockStarts[i] > n.BlockLines[i] || n.BlockStarts[i] < 1 {
			t.Fatalf("block %q starts on line %d, after its id on line %d", n.BlockIDs[i], n.BlockStarts[i], n.BlockLines[i])
		}
	}
	lines := bytes.Split(src, []byte("\n"))
	for i, id := range n.BlockIDs {
		if l := n.BlockLines[i]; l < 1 || l > len(lines) || !bytes.Contains(lines[l-1], []byte("^"+id)) {
			t.Fatalf("block id %q: line %d does not hold it", id, l)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add([]byte(tc.src))
	}
	f.Add([]byte(benchNote))
	f.Add([]byte("---\nprefLabel: X\nnarrower: [[Naïve Bayes]], [[Régression]]\n---\n"))
	f.Add([]byte("---\nskos:broader: [[A]] [[B\n---\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkNote(t, src)
		// ParseShared differs from Parse only in not copying src.
		if got, want := ParseShared(bytes.Clone(src)), Parse(src); !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseShared(%q) = %+v, Parse = %+v", src, got, want)
		}
	})
}
