package edit

import (
	"encoding/json"
	"strings"

	"vaultmcp/vault/markdown"
)

// TargetType says what a patch's target names.
type TargetType string

// The kinds of target.
const (
	Heading     TargetType = "heading"     // a heading's text or "Outer::Inner" path
	Block       TargetType = "block"       // a block id, "^id"
	Frontmatter TargetType = "frontmatter" // a property key
)

// Op is what a patch does at its target.
type Op string

// The operations.
const (
	Append  Op = "append"
	Prepend Op = "prepend"
	Replace Op = "replace"
	Delete  Op = "delete"
)

// Patch is one change to one part of a note.
type Patch struct {
	Type    TargetType
	Target  string
	Op      Op
	Content string // LF line ends; ignored (and must be empty) for Delete
}

// Apply returns src with the patch applied. Everything outside the part
// the patch targets is left byte for byte as it was.
//
// Heading: the section is the heading's body, up to the next heading of
// the same or a higher level (so it includes subsections). Append puts
// the content after the section's last non-blank line, keeping the blank
// lines that separate it from the next heading; prepend puts it right
// after the heading line; replace swaps the section's text (from its
// first to its last non-blank line) for the content, keeping the heading;
// delete removes the heading and its section (keeping a blank line that
// is needed to separate what was above it from the next heading).
//
// Block: the block is the paragraph, list item, table or quote the ^id
// marks. Append and prepend put the content right after or before it
// (with a blank line between when the block is a plain paragraph, which
// the lines would otherwise join); replace swaps its lines for the
// content and keeps the id; delete removes it with its id.
//
// Frontmatter: the target is a property key. Replace sets its value,
// append and prepend add to a list (or to text), delete removes the key.
// The content is read as JSON when it parses as JSON (["a","b"], 3,
// true, "quoted text"), else as plain text.
func Apply(src []byte, p Patch) ([]byte, error) {
	switch p.Op {
	case Append, Prepend, Replace:
	case Delete:
		if p.Content != "" {
			return nil, invalid("content must be empty for delete")
		}
	default:
		return nil, invalid("unknown operation %q: use append, prepend, replace or delete", p.Op)
	}
	if (p.Op == Append || p.Op == Prepend) && p.Content == "" {
		return nil, invalid("content is empty: nothing to %s", p.Op)
	}
	switch p.Type {
	case Heading:
		return patchHeading(src, p)
	case Block:
		return patchBlock(src, p)
	case Frontmatter:
		return patchFrontmatter(src, p)
	}
	return nil, invalid("unknown target_type %q: use heading, block or frontmatter", p.Type)
}

func patchHeading(src []byte, p Patch) ([]byte, error) {
	lines := splitLines(src)
	hs := outline(src, lines, markdown.Parse(src))
	i, err := findHeading(hs, p.Target)
	if err != nil {
		return nil, err
	}
	h := hs[i]
	eol := lineEOL(src, lines, h.line)
	content := asLines(normalize(p.Content, eol), eol)
	at := func(i int) int { return lineStart(lines, i, len(src)) }
	first, last := -1, -1
	for j := h.body; j < h.end; j++ {
		if !blank(lines[j].text(src)) {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	switch p.Op {
	case Delete:
		// The blank lines that end the section separate what was above
		// it from the next heading; they go only when a blank line above
		// the heading still does that.
		to := h.end
		if h.line > 0 && !blank(lines[h.line-1].text(src)) {
			to = h.body
			if last >= 0 {
				to = last + 1
			}
		}
		return splice(src, at(h.line), at(to), "", eol), nil
	case Prepend:
		return splice(src, at(h.body), at(h.body), content, eol), nil
	case Replace:
		if first < 0 {
			return splice(src, at(h.body), at(h.body), content, eol), nil
		}
		return splice(src, at(first), at(last+1), content, eol), nil
	}
	if last < 0 {
		return splice(src, at(h.body), at(h.body), content, eol), nil
	}
	return splice(src, at(last+1), at(last+1), content, eol), nil
}

func patchBlock(src []byte, p Patch) ([]byte, error) {
	lines := splitLines(src)
	n := markdown.Parse(src)
	hs := outline(src, lines, n)
	b, err := findBlock(src, lines, n, hs, p.Target)
	if err != nil {
		return nil, err
	}
	eol := lineEOL(src, lines, b.start)
	content := asLines(normalize(p.Content, eol), eol)
	at := func(i int) int { return lineStart(lines, i, len(src)) }
	switch p.Op {
	case Prepend:
		if b.paragraph {
			content += eol
		}
		return splice(src, at(b.start), at(b.start), content, eol), nil
	case Append:
		after := b.end
		if b.idLine == b.end {
			after = b.idLine + 1 // the id's own line right below the text
		}
		if b.paragraph {
			content = eol + content
		}
		return splice(src, at(after), at(after), content, eol), nil
	case Replace:
		if b.inline() {
			content = withID(content, b.id, eol)
		}
		if content == "" && !b.inline() {
			return nil, invalid("content is empty: the block's id would mark nothing; use delete to remove the block")
		}
		return splice(src, at(b.start), at(b.end), content, eol), nil
	}
	// Delete: the block with its id, and one blank line of the two that
	// surrounded it.
	from, to := b.start, max(b.end, b.idLine+1)
	before := from == 0 || blank(lines[from-1].text(src))
	if before && to < len(lines) && blank(lines[to].text(src)) {
		to++
	}
	return splice(src, at(from), at(to), "", eol), nil
}

// withID puts " ^id" at the end of the content's last line, unless the
// client already wrote it there.
func withID(content, id, eol string) string {
	body := strings.TrimRight(content, "\r\n")
	if body == "" {
		return "^" + id + eol
	}
	if strings.HasSuffix(body, "^"+id) {
		return body + eol
	}
	return body + " ^" + id + eol
}

func patchFrontmatter(src []byte, p Patch) ([]byte, error) {
	key := strings.TrimSpace(p.Target)
	if key == "" {
		return nil, invalid("target is empty: give the property key")
	}
	fm, err := parseFrontmatter(src)
	if err != nil {
		return nil, err
	}
	at, err := fm.find(key)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		if len(fm.entries) == 0 {
			return nil, withCandidates(ErrNotFound, fm.keys(), "property %q not found: the note has no properties (set_properties adds them)", key)
		}
		return nil, withCandidates(ErrNotFound, fm.keys(), "property %q not found (set_properties adds new ones); the note's properties are", key)
	}
	if p.Op == Delete {
		out, _, err := SetProperties(src, nil, []string{key})
		return out, err
	}
	v := contentValue(p.Content)
	if p.Op != Replace {
		old := fm.entries[at].val
		if v, err = combine(key, old, v, p.Op); err != nil {
			return nil, err
		}
	}
	out, _, err := SetProperties(src, Object{{key, v}}, nil)
	return out, err
}

// contentValue reads patch content as a property value: JSON when it is
// JSON, else the text itself.
func contentValue(content string) any {
	text := strings.TrimRight(content, "\r\n")
	if json.Valid([]byte(text)) {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return v
		}
	}
	return text
}

// combine appends or prepends v to a property's old value: items to a
// list, text to text; an empty property takes v as it is.
func combine(key string, old, v any, op Op) (any, error) {
	switch o := old.(type) {
	case nil:
		return v, nil
	case []any:
		items, ok := v.([]any)
		if !ok {
			items = []any{v}
		}
		if op == Append {
			return append(append([]any{}, o...), items...), nil
		}
		return append(append([]any{}, items...), o...), nil
	case string:
		s, ok := v.(string)
		if !ok {
			return nil, invalid("property %q holds text; %s text to it, or use replace", key, op)
		}
		if op == Append {
			return o + s, nil
		}
		return s + o, nil
	}
	return nil, invalid("property %q is not a list or text; use replace to change it", key)
}
