package edit

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"vaultmcp/vault/markdown"
)

// Property is one frontmatter key with its value and type.
type Property struct {
	Key   string
	Value any    // string, int64, float64, bool, nil, []any or Object
	Type  string // one of the Type* constants
}

// frontmatter is a note's YAML block, located and parsed, with the lines
// each top-level key takes.
type frontmatter struct {
	src   []byte
	lines []line
	eol   string
	// present: the note has a frontmatter block. When not, insert is
	// where one would go (after a byte order mark).
	present bool
	insert  int
	// open and close are the indices of the --- lines.
	open, close int
	root        *yaml.Node // the mapping; nil when the block is empty
	entries     []entry
	indent      string // of the top-level keys
	// oneLine: keys share lines ({a: 1, b: 2}), so they cannot be
	// edited line by line.
	oneLine bool
}

// entry is one top-level key: its lines are [first, end).
type entry struct {
	key        string
	keyNode    *yaml.Node
	value      *yaml.Node
	val        any // value read as JSON
	first, end int
}

// parseFrontmatter locates and reads the frontmatter of src the way the
// markdown parser (and Obsidian) do: a "---" first line (after an
// optional byte order mark) up to a "---" or "..." line.
func parseFrontmatter(src []byte) (*frontmatter, error) {
	fm := &frontmatter{src: src, lines: splitLines(src), eol: eolOf(src)}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		fm.insert = 3
	}
	yamlStart, yamlEnd, _, ok := markdown.FrontmatterBounds(src)
	if !ok {
		return fm, nil
	}
	fm.present = true
	fm.open, fm.close = 0, -1
	for i, l := range fm.lines {
		if l.start == yamlEnd {
			fm.close = i
			break
		}
	}
	if fm.close <= fm.open || fm.lines[fm.open].next != yamlStart {
		return nil, invalid("frontmatter could not be located")
	}
	text := src[yamlStart:yamlEnd]
	doc, err := parseYAML(text)
	if err != nil {
		return nil, invalid("the note's frontmatter is not valid YAML (%v); fix it with edit_file first", err)
	}
	if len(doc.Content) == 0 {
		return fm, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, invalid("the note's frontmatter is not a list of properties (key: value lines)")
	}
	fm.root = root
	if len(root.Content) > 0 {
		fm.indent = strings.Repeat(" ", max(root.Content[0].Column-1, 0))
	}
	base := fm.open + 1 // yaml line 1 is this line of the note
	r := valueReader{left: maxValues}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		fm.entries = append(fm.entries, entry{key: keyText(k), keyNode: k, value: v, val: r.value(v, 0), first: base + k.Line - 1})
	}
	if r.left < 0 {
		return nil, invalid("the note's frontmatter stands for more than %d values (YAML aliases?); fix it with edit_file first", maxValues)
	}
	for i := 1; i < len(fm.entries); i++ {
		if fm.entries[i].first <= fm.entries[i-1].first {
			fm.oneLine = true
		}
	}
	if root.Style&yaml.FlowStyle != 0 {
		fm.oneLine = true
	}
	for i := range fm.entries {
		end := fm.close
		if i+1 < len(fm.entries) {
			end = fm.entries[i+1].first
		}
		fm.entries[i].end = fm.trimTail(fm.entries[i], end)
	}
	return fm, nil
}

// parseYAML reads YAML text into a node tree; yaml.v3 has panicked on
// hostile input before, and a panic must not take the server down.
func parseYAML(text []byte) (doc yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	err = yaml.Unmarshal(text, &doc)
	return doc, err
}

// trimTail returns where an entry's own lines end: blank lines and
// comment lines at its end belong to what follows (the next key's head
// comment, a separating blank line), unless the value is a block or
// quoted scalar, where an indented "#" line is text.
func (fm *frontmatter) trimTail(e entry, end int) int {
	textual := e.value.Kind == yaml.ScalarNode && e.value.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	for end-1 > e.first {
		t := fm.lines[end-1].text(fm.src)
		if blank(t) {
			end--
			continue
		}
		trimmed := bytes.TrimLeft(t, " \t")
		if trimmed[0] == '#' && (!textual || len(t)-len(trimmed) <= len(fm.indent)) {
			end--
			continue
		}
		break
	}
	return end
}

// find returns the index of key's entry, or -1. A key written twice is
// an error: which one Obsidian shows is not for us to guess.
func (fm *frontmatter) find(key string) (int, error) {
	at := -1
	for i, e := range fm.entries {
		if e.key == key {
			if at >= 0 {
				return -1, invalid("property %q is written twice in the frontmatter; fix it with edit_file first", key)
			}
			at = i
		}
	}
	return at, nil
}

func (fm *frontmatter) keys() []string {
	keys := make([]string, len(fm.entries))
	for i, e := range fm.entries {
		keys[i] = e.key
	}
	return keys
}

// properties returns the frontmatter's keys in order, with values.
func (fm *frontmatter) properties() []Property {
	props := make([]Property, len(fm.entries))
	for i, e := range fm.entries {
		props[i] = Property{Key: e.key, Value: e.val, Type: nodeType(e.value)}
	}
	return props
}

// Properties reads a note's frontmatter properties in the order written.
// A note without frontmatter has none; one whose frontmatter does not
// parse is an error.
func Properties(src []byte) ([]Property, error) {
	fm, err := parseFrontmatter(src)
	if err != nil {
		return nil, err
	}
	return fm.properties(), nil
}

// Change says what SetProperties did.
type Change struct {
	Set     []string // keys whose value was replaced
	Added   []string // keys that were new
	Removed []string // keys that were deleted
	Kept    []string // keys given with the value they already had
}

// SetProperties sets each key of set to its value and removes the keys
// in remove. A key that exists is rewritten where it stands; new keys are
// added at the end of the frontmatter in the order given (a frontmatter
// block is created when the note has none). Keys given with the value
// they already hold, and keys to remove that do not exist, are left
// alone, so every untouched line keeps its bytes. Values are JSON
// values: text, numbers, booleans, lists, null (an empty property) and
// objects.
func SetProperties(src []byte, set Object, remove []string) ([]byte, Change, error) {
	var ch Change
	keys := make([]string, 0, len(set))
	values := make(map[string]any, len(set))
	for _, m := range set {
		if _, dup := values[m.Key]; dup {
			return nil, ch, invalid("property %q is given twice", m.Key)
		}
		keys = append(keys, m.Key)
		values[m.Key] = m.Value
	}
	for _, k := range remove {
		if _, ok := values[k]; ok {
			return nil, ch, invalid("property %q is both set and removed", k)
		}
	}
	for _, k := range append(slices.Clone(keys), remove...) {
		if err := checkKey(k); err != nil {
			return nil, ch, err
		}
	}
	fm, err := parseFrontmatter(src)
	if err != nil {
		return nil, ch, err
	}
	if fm.oneLine {
		return nil, ch, invalid("the note's frontmatter is written on one line ({key: value, …}); rewrite it as key: value lines (edit_file) first")
	}
	type cut struct {
		from, to int // line range replaced
		text     string
	}
	var cuts []cut
	var added strings.Builder
	for _, k := range keys {
		at, err := fm.find(k)
		if err != nil {
			return nil, ch, err
		}
		if at >= 0 && sameValue(fm.entries[at].val, normalizeValue(values[k])) {
			ch.Kept = append(ch.Kept, k)
			continue
		}
		text, err := renderEntry(k, values[k], fm.indent, fm.eol)
		if err != nil {
			return nil, ch, err
		}
		if at < 0 {
			added.WriteString(text)
			ch.Added = append(ch.Added, k)
			continue
		}
		e := fm.entries[at]
		if c := e.value.LineComment; c != "" && !strings.Contains(strings.TrimSuffix(text, fm.eol), fm.eol) {
			// "status: draft # why" keeps its comment.
			text = strings.TrimSuffix(text, fm.eol) + " " + c + fm.eol
		}
		cuts = append(cuts, cut{e.first, e.end, text})
		ch.Set = append(ch.Set, k)
	}
	for _, k := range remove {
		at, err := fm.find(k)
		if err != nil {
			return nil, ch, err
		}
		if at < 0 {
			continue
		}
		e := fm.entries[at]
		cuts = append(cuts, cut{e.first, e.end, ""})
		ch.Removed = append(ch.Removed, k)
	}
	if len(cuts) == 0 && added.Len() == 0 {
		return src, ch, nil
	}
	var out []byte
	if !fm.present {
		block := "---" + fm.eol + added.String() + "---" + fm.eol
		out = append(append(append([]byte{}, src[:fm.insert]...), block...), src[fm.insert:]...)
	} else {
		if added.Len() > 0 {
			cuts = append(cuts, cut{fm.close, fm.close, added.String()})
		}
		// Apply from the bottom up so earlier offsets stay valid.
		sort.Slice(cuts, func(i, j int) bool { return cuts[i].from > cuts[j].from })
		out = src
		for _, c := range cuts {
			out = splice(out, fm.lines[c.from].start, lineStart(fm.lines, c.to, len(fm.src)), c.text, fm.eol)
		}
	}
	if err := checkFrontmatter(out); err != nil {
		return nil, ch, err
	}
	return out, ch, nil
}

// lineStart is the offset where line i starts (size at the end).
func lineStart(lines []line, i, size int) int {
	if i < len(lines) {
		return lines[i].start
	}
	return size
}

func checkKey(k string) error {
	switch {
	case strings.TrimSpace(k) == "":
		return invalid("a property key is empty")
	case strings.ContainsAny(k, "\r\n"):
		return invalid("property key %q spans lines", k)
	case len(k) > 512:
		return invalid("property key %q is longer than 512 bytes", k[:40]+"…")
	}
	return nil
}

// checkFrontmatter re-reads an edited note's frontmatter: an edit must
// never leave YAML that Obsidian cannot read (a removed anchor that an
// alias elsewhere uses, say).
func checkFrontmatter(src []byte) error {
	if _, err := parseFrontmatter(src); err != nil {
		var e *Error
		if ok := asError(err, &e); ok {
			return invalid("the change would leave the frontmatter unreadable (%s); nothing was changed", strings.TrimSuffix(e.Msg, "; fix it with edit_file first"))
		}
		return err
	}
	return nil
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}
