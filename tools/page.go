package tools

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// MaxPageLimit is the largest limit a list tool accepts: enough for a
// client that wants every backlink of even a very popular note.
const MaxPageLimit = 10_000

// Paging is what every list tool takes besides its own arguments.
type Paging struct {
	// Limit is the most items to return; nil means the tool's default,
	// which also stops the page before it outgrows DefaultPageTokens.
	Limit *int `json:"limit"`
	// Offset is how many items to skip.
	Offset int `json:"offset"`
}

// pagingOptions declares limit and offset in a tool's input schema.
func pagingOptions(noun string, def int) []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(MaxPageLimit),
			mcp.Description(fmt.Sprintf("Most %s to return (default %d)", noun, def))),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description(fmt.Sprintf("%s to skip (a previous next_offset)", capitalize(noun)))),
	}
}

// PageInfo is what a paged JSON answer adds to its tool's own fields.
type PageInfo struct {
	NextOffset *int   `json:"next_offset,omitempty" jsonschema:"Offset of the next page; absent on the last"`
	Notice     string `json:"notice,omitempty" jsonschema:"Set when the answer is one page of several"`
}

// span is the part of a list one answer shows: items [Start, End) of
// Total.
type span struct {
	Start, End, Total int
	offset            int    // as asked, which may be past the end
	noun              string // plural, for notices
}

// bounds returns the offset and limit p asks for, def when it gives no
// limit.
func (p Paging) bounds(def int) (offset, limit int) {
	limit = def
	if p.Limit != nil {
		limit = *p.Limit
	}
	return max(p.Offset, 0), max(limit, 0)
}

// paginate picks the page of total items that p asks for, def items at
// most when it gives no limit.
func paginate(p Paging, total, def int, noun string) span {
	offset, limit := p.bounds(def)
	start := min(offset, total)
	return span{Start: start, End: start + min(limit, total-start), Total: total, offset: p.Offset, noun: noun}
}

// fit shortens a page whose limit the client left to the tool so that it
// stays under budget tokens, size(i) being the estimated tokens of the
// page's i-th item (package internal/tokens); at least one item stays,
// whatever its size. An explicit limit is honoured whole: the result
// ceiling is the guard there.
func (s span) fit(p Paging, budget int, size func(i int) int) span {
	if p.Limit != nil {
		return s
	}
	used := 0
	for i := s.Start; i < s.End; i++ {
		used += size(i - s.Start)
		if used > budget && i > s.Start {
			s.End = i
			break
		}
	}
	return s
}

// more reports whether items follow this page.
func (s span) more() bool { return s.End < s.Total }

// pastEnd reports whether the offset asked for lies beyond the list.
func (s span) pastEnd() bool { return s.offset > 0 && s.offset >= s.Total }

// info is the page's JSON fields.
func (s span) info() PageInfo {
	pi := PageInfo{Notice: s.notice()}
	if s.more() {
		next := s.End
		pi.NextOffset = &next
	}
	return pi
}

// notice says in words which part of the list the answer holds, or ""
// when it holds all of it.
func (s span) notice() string {
	switch {
	case s.pastEnd():
		return fmt.Sprintf("offset=%d is past the end: there are %s %s", s.offset, count(s.Total), s.noun)
	case s.more():
		return fmt.Sprintf("showing %s–%s of %s %s; call again with offset=%d for the next page",
			count(s.Start+1), count(s.End), count(s.Total), s.noun, s.End)
	case s.Start > 0:
		return fmt.Sprintf("showing %s–%s of %s %s (the last page)", count(s.Start+1), count(s.End), count(s.Total), s.noun)
	}
	return ""
}

// withNotice ends a text answer with the page's notice, if any, on a
// line of its own and set off by brackets so it cannot be taken for
// content.
func (s span) withNotice(body string) string {
	n := s.notice()
	switch {
	case n == "":
		return body
	case body == "":
		return "[" + n + "]"
	}
	return body + "\n[" + n + "]"
}

// window returns items' part of the page.
func window[T any](items []T, s span) []T {
	return items[s.Start:s.End]
}

// keep returns what s still holds of a page fetched for it before fit
// shortened it.
func keep[T any](page []T, s span) []T {
	return page[:s.End-s.Start]
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
