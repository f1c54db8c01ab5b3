package markdown

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"
)

// benchNote is a typical ~2 KB note: frontmatter, headings, ten links of
// every kind, tags, a code block, a list, a quote and a table.
const benchNote = `---
title: Weekly review 2025-W03
created: 2025-01-17
tags: [review, work/planning]
aliases: [W03 review]
---
# Weekly review

Went through the [[Project Ideas|ideas backlog]] and the notes from
[[Daily Notes/2025-01-15]]. The migration plan in [[Work/Active Projects#Migration]]
still holds; see also the decision record ![[Decisions/ADR-007.md]]. #review

## What moved

- Finished the draft of [the proposal](Work/Proposal%20Draft.md) and sent it. #work/planning
- Cleaned up [[Archive/Brainstorm]] — most of it is obsolete now.
- Re-read [[Books/Thinking in Systems#^key-quote]] for the feedback-loop idea.
- Screenshot of the board: ![board](attachments/board%202025-01-17.png)

> [!note] Reminder
> Ask about the budget before Friday, see [[Meeting Notes]].

## Numbers

| metric | value | source |
|--------|-------|--------|
| notes  | 1,204 | [[Vault Stats\|stats]] |
| links  | 5,870 | computed |

` + "```go" + `
// not a link: [[Inside Code]] and #not-a-tag
func main() { fmt.Println("x[0] = ", x[0]) }
` + "```" + `

Inline code like ` + "`[[also not]]`" + ` is skipped, and so is %%a hidden [[Comment]]%%.
Math such as $e^{i\pi} + 1 = 0$ stays math.

## Next week

1. Write up [[Concepts/Feedback Loop|feedback loops]] as a concept note. ^next-1
2. Review #inbox and #someday/maybe items.
3. Plan the offsite: agenda draft in <Work/Offsite Agenda.md> later.

Last line with a block id. ^review-w03
`

func BenchmarkParse(b *testing.B) {
	src := []byte(benchNote)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(src)
	}
}

// BenchmarkParseSharedInto parses into one Note again and again, as a
// build of the index does.
func BenchmarkParseSharedInto(b *testing.B) {
	src := []byte(benchNote)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var n Note
	for b.Loop() {
		ParseSharedInto(&n, src)
	}
}

// BenchmarkParseBody leaves the YAML out, to show what the scanner costs on
// its own.
func BenchmarkParseBody(b *testing.B) {
	n := Parse([]byte(benchNote))
	src := []byte(benchNote[n.BodyOffset:])
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(src)
	}
}

// BenchmarkGoldmarkParse is the alternative this package was measured
// against: goldmark building its AST of the same body, without walking it
// and without any wikilink extension, so a lower bound for that design.
func BenchmarkGoldmarkParse(b *testing.B) {
	n := Parse([]byte(benchNote))
	src := []byte(benchNote[n.BodyOffset:])
	p := goldmark.New().Parser()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		p.Parse(text.NewReader(src))
	}
}

// BenchmarkParseHostile parses 256 KB inputs built to make naive scanners
// quadratic (unclosed constructs rescanned from every opener); MB/s should
// stay in the same range as for a normal note.
func BenchmarkParseHostile(b *testing.B) {
	inputs := map[string]string{
		"backtick runs":    growingRuns(),
		"unclosed comment": strings.Repeat("<!-- a ", 1<<15),
		"dollars":          strings.Repeat("$a ", 1<<16),
		"brackets":         strings.Repeat("[a](b \"", 1<<15),
		"wikilink opens":   strings.Repeat("[[a ", 1<<16),
		"nested quotes":    strings.Repeat("> ", 1<<16) + "[[x]]",
		"list nesting":     strings.Repeat("- ", 1<<16) + "[[x]]",
	}
	for name, in := range inputs {
		src := []byte(in)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse(src)
			}
		})
	}
}

// growingRuns is "` “ ``` ````…": runs of distinct lengths, none closed.
func growingRuns() string {
	var sb strings.Builder
	for n := 1; sb.Len() < 1<<18; n++ {
		sb.WriteString(strings.Repeat("`", n))
		sb.WriteByte(' ')
	}
	return sb.String()
}
