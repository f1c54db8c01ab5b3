package markdown

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The fast path reads the frontmatter most notes have — a mapping of
// plain, quoted and numeric scalars, dates, lists of tags and aliases in
// flow ([a, b]) or block (- a) form, and mappings nested by indentation —
// without yaml.v3, which spends more on setting up its scanner and node
// tree than on such a block's few lines (a third of the index's build).
// It gives exactly what yaml.v3 gives or nothing: whatever it is not sure
// of (anchors, tags, block scalars, multi-line scalars, flow mappings,
// escapes other than the simplest, tabs, control characters, duplicate
// keys, keys that are not strings) makes it give up, and yaml.v3 reads the
// block. FuzzFastYAML and TestFastYAMLRandom hold it to yaml.v3.

// yKind is the kind of a node of the fast path's tree.
type yKind uint8

const (
	yScalar yKind = iota
	ySeq
	yMap
)

// yNode is one node of the tree the fast path builds, stored in preorder
// in the parser's node slice: the node's children follow it, and end is
// the index past its subtree. A mapping's children alternate keys and
// values.
type yNode struct {
	kind   yKind
	quoted bool   // a quoted scalar: always a string
	text   string // a scalar's value, unquoted and unescaped
	line   int    // 1-based line in the frontmatter text
	n      int    // children
	end    int
}

// null reports whether the node is a scalar YAML reads as null.
func (v *yNode) null() bool {
	if v.kind != yScalar || v.quoted {
		return false
	}
	switch v.text {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// yLine is one line of the frontmatter that holds something: blank lines
// and comment lines are left out.
type yLine struct {
	text   string // the line after its indentation, without the line break
	indent int
	no     int // 1-based line in the frontmatter text
}

// maxFastDepth bounds the nesting the fast path follows (yaml.v3 takes
// the rest).
const maxFastDepth = 16

// fastYAML is the state of one fast-path read.
type fastYAML struct {
	lines []yLine
	i     int // the line being read
	nodes []yNode
	buf   []byte // scratch for unescaping; strings are copied out of it
}

// maxFastNodes bounds the tree the fast path builds: Properties visits at
// most maxPropertyNodes of yaml.v3's, and a block that large is rare
// enough to leave to yaml.v3.
const maxFastNodes = 4096

// tree reads text into y.nodes (root at 0) and reports whether it
// could; false means yaml.v3 must read the text. empty is set when the
// text holds nothing but blank lines and comments.
func (y *fastYAML) tree(text string) (ok, empty bool) {
	if !y.split(text) {
		return false, false
	}
	if len(y.lines) == 0 {
		return true, true
	}
	if y.lines[0].indent != 0 {
		return false, false
	}
	if !y.mapping(0, 0) || y.i != len(y.lines) || len(y.nodes) > maxFastNodes {
		return false, false
	}
	return true, false
}

// reset empties the state for the next read, keeping its arrays (within
// bounds) but no string of the text just read.
func (y *fastYAML) reset() {
	clear(y.lines)
	clear(y.nodes)
	if cap(y.lines) > 1024 || cap(y.nodes) > 1024 {
		y.lines, y.nodes = nil, nil
	}
	if cap(y.buf) > 4096 {
		y.buf = nil
	}
	y.lines, y.nodes, y.buf, y.i = y.lines[:0], y.nodes[:0], y.buf[:0], 0
}

// split checks that every character of text is one yaml.v3 reads without
// question and cuts it into lines.
func (y *fastYAML) split(text string) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			// Tabs and bare carriage returns are legal in places and not in
			// others: yaml.v3 decides.
			if (c < 0x20 && c != '\n' && !(c == '\r' && i+1 < len(text) && text[i+1] == '\n')) || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		// Invalid UTF-8, C1 controls (and NEL, a line break to YAML), the
		// Unicode line and paragraph separators, a byte order mark and
		// non-characters.
		if r == utf8.RuneError && size == 1 || r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	for no, rest := 1, text; rest != ""; no++ {
		line := rest
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSuffix(line, "\r")
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		if indent == len(line) || line[indent] == '#' {
			continue
		}
		y.lines = append(y.lines, yLine{text: line[indent:], indent: indent, no: no})
	}
	return true
}

// add appends a node and returns its index.
func (y *fastYAML) add(v yNode) int {
	y.nodes = append(y.nodes, v)
	return len(y.nodes) - 1
}

// leaf appends a scalar, a node without children.
func (y *fastYAML) leaf(v yNode) {
	v.end = len(y.nodes) + 1
	y.nodes = append(y.nodes, v)
}

// isSeqLine reports whether a line is a block sequence entry ("- …").
func isSeqLine(s string) bool {
	return s != "" && s[0] == '-' && (len(s) == 1 || s[1] == ' ')
}

// mapping reads a block mapping whose keys are indented by indent.
func (y *fastYAML) mapping(indent, depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	at := y.add(yNode{kind: yMap, line: y.lines[y.i].no})
	for y.i < len(y.lines) && y.lines[y.i].indent == indent {
		l := y.lines[y.i]
		key, rest, ok := splitKey(l.text)
		if !ok || !plainString(key) {
			return false
		}
		// yaml.v3 refuses a mapping with the same key twice.
		for k := at + 1; k < len(y.nodes); k = y.nodes[y.nodes[k].end].end {
			if y.nodes[k].text == key {
				return false
			}
		}
		y.leaf(yNode{kind: yScalar, text: key, line: l.no})
		y.i++
		if rest == "" {
			if !y.blockValue(indent, l.no, depth) {
				return false
			}
		} else if !y.inline(rest, l.no) {
			return false
		}
		y.nodes[at].n += 2
		if y.i < len(y.lines) && y.lines[y.i].indent > indent {
			return false // a continuation line, or bad indentation
		}
	}
	y.nodes[at].end = len(y.nodes)
	return true
}

// blockValue reads the value of a key written alone on its line: a block
// sequence or mapping on the lines below, or null.
func (y *fastYAML) blockValue(indent, line, depth int) bool {
	if y.i < len(y.lines) {
		next := y.lines[y.i]
		switch {
		case next.indent > indent && isSeqLine(next.text), next.indent == indent && isSeqLine(next.text):
			return y.sequence(next.indent)
		case next.indent > indent:
			return y.mapping(next.indent, depth+1)
		}
	}
	// yaml.v3 puts an empty value on the key's line.
	y.leaf(yNode{kind: yScalar, line: line})
	return true
}

// sequence reads a block sequence of scalars and flow sequences whose
// dashes are indented by indent.
func (y *fastYAML) sequence(indent int) bool {
	at := y.add(yNode{kind: ySeq, line: y.lines[y.i].no})
	for y.i < len(y.lines) && y.lines[y.i].indent == indent && isSeqLine(y.lines[y.i].text) {
		l := y.lines[y.i]
		if len(l.text) < 2 {
			return false // an empty entry, or one whose value is below
		}
		rest := strings.TrimLeft(l.text[2:], " ")
		if rest == "" || rest[0] == '#' || rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
			return false
		}
		if !y.inline(rest, l.no) {
			return false
		}
		y.nodes[at].n++
		y.i++
		if y.i < len(y.lines) && y.lines[y.i].indent > indent {
			return false
		}
	}
	y.nodes[at].end = len(y.nodes)
	return true
}

// splitKey cuts a mapping line into its plain key and the value after
// "key:", or reports that the line is not one the fast path reads.
func splitKey(s string) (key, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' {
			continue
		}
		key = strings.TrimRight(s[:i], " ")
		// "..." ends the document when a blank follows it.
		if key == "" || len(key) > 512 || strings.Contains(key, " #") || strings.ContainsAny(key[:1], "-?:,[]{}#&*!|>'\"%@`<") ||
			strings.HasPrefix(key, "...") {
			return "", "", false
		}
		rest = strings.TrimLeft(s[i+1:], " ")
		if rest != "" && rest[0] == '#' {
			rest = "" // a comment
		}
		return key, rest, true
	}
	return "", "", false
}

// plainString reports whether a plain scalar reads as a string.
func plainString(s string) bool {
	_, isString := resolvePlain(s).(string)
	return isString
}

// inline reads the value written after a key or a dash: a flow sequence,
// a quoted scalar or a plain one, each on that one line.
func (y *fastYAML) inline(s string, line int) bool {
	switch s[0] {
	case '[':
		rest, ok := y.flowSeq(s, line, 0)
		return ok && endOfLine(rest)
	case '"', '\'':
		v, rest, ok := y.quoted(s)
		if !ok || !endOfLine(rest) {
			return false
		}
		y.leaf(yNode{kind: yScalar, quoted: true, text: v, line: line})
		return true
	}
	if strings.ContainsAny(s[:1], ",]{}#&*!|>%@`?:") || s[0] == '-' && (len(s) == 1 || s[1] == ' ') {
		return false
	}
	if c := strings.Index(s, " #"); c >= 0 {
		s = s[:c]
	}
	s = strings.TrimRight(s, " ")
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return false // a mapping in a place the fast path does not read one
	}
	y.leaf(yNode{kind: yScalar, text: s, line: line})
	return true
}

// endOfLine reports whether what follows a value is nothing, or a comment.
func endOfLine(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || t[0] == '#' && len(t) < len(rest)
}

// flowSeq reads a flow sequence of scalars and flow sequences written on
// one line, from its '[', and returns what follows its ']'.
func (y *fastYAML) flowSeq(s string, line, depth int) (string, bool) {
	if depth > maxFastDepth {
		return "", false
	}
	at := y.add(yNode{kind: ySeq, line: line})
	s = strings.TrimLeft(s[1:], " ")
	if s != "" && s[0] == ']' {
		y.nodes[at].end = len(y.nodes)
		return s[1:], true
	}
	for {
		if s == "" {
			return "", false
		}
		switch s[0] {
		case '[':
			rest, ok := y.flowSeq(s, line, depth+1)
			if !ok {
				return "", false
			}
			s = rest
		case '"', '\'':
			v, rest, ok := y.quoted(s)
			if !ok {
				return "", false
			}
			y.leaf(yNode{kind: yScalar, quoted: true, text: v, line: line})
			s = rest
		default:
			end := strings.IndexAny(s, ",[]{}")
			if end < 0 || s[end] != ',' && s[end] != ']' {
				return "", false
			}
			v := strings.TrimRight(s[:end], " ")
			if v == "" || strings.ContainsAny(v, ":?") || strings.Contains(v, " #") || strings.ContainsAny(v[:1], "-&*!|>'\"%@`#") {
				return "", false
			}
			y.leaf(yNode{kind: yScalar, text: v, line: line})
			s = s[end:]
		}
		y.nodes[at].n++
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return "", false
		}
		switch s[0] {
		case ']':
			y.nodes[at].end = len(y.nodes)
			return s[1:], true
		case ',':
			s = strings.TrimLeft(s[1:], " ")
			if s == "" || s[0] == ']' || s[0] == ',' {
				return "", false // a trailing or empty entry: yaml.v3 decides
			}
		default:
			return "", false
		}
	}
}

// quoted reads a quoted scalar that closes on the same line, from its
// opening quote, and returns its value and what follows it.
func (y *fastYAML) quoted(s string) (v, rest string, ok bool) {
	q := s[0]
	if q == '\'' {
		for i := 1; i < len(s); i++ {
			if s[i] != '\'' {
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				return y.singleQuoted(s)
			}
			return s[1:i], s[i+1:], true
		}
		return "", "", false
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return s[1:i], s[i+1:], true
		case '\\':
			return y.doubleQuoted(s)
		}
	}
	return "", "", false
}

// singleQuoted reads a single-quoted scalar with ” in it.
func (y *fastYAML) singleQuoted(s string) (v, rest string, ok bool) {
	y.buf = y.buf[:0]
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			y.buf = append(y.buf, s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			y.buf = append(y.buf, '\'')
			i++
			continue
		}
		return string(y.buf), s[i+1:], true
	}
	return "", "", false
}

// doubleQuoted reads a double-quoted scalar with escapes in it: only
// \\, \", \t and \n; yaml.v3 reads the others.
func (y *fastYAML) doubleQuoted(s string) (v, rest string, ok bool) {
	y.buf = y.buf[:0]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return string(y.buf), s[i+1:], true
		case '\\':
			if i+1 == len(s) {
				return "", "", false
			}
			i++
			switch s[i] {
			case '\\', '"':
				y.buf = append(y.buf, s[i])
			case 't':
				y.buf = append(y.buf, '\t')
			case 'n':
				y.buf = append(y.buf, '\n')
			default:
				return "", "", false
			}
		default:
			y.buf = append(y.buf, s[i])
		}
	}
	return "", "", false
}

// value converts the subtree at i to what yaml.v3 decodes it to: strings,
// ints, floats, bools, times and nil, []any and map[string]any. With
// literal set, scalars stay text as written (nil for null), as Properties
// documents.
func (y *fastYAML) value(i int, literal bool) any {
	v := &y.nodes[i]
	switch v.kind {
	case ySeq:
		out := make([]any, 0, v.n)
		for k := i + 1; k < v.end; k = y.nodes[k].end {
			out = append(out, y.value(k, literal))
		}
		return out
	case yMap:
		out := make(map[string]any, v.n/2)
		for k := i + 1; k < v.end; {
			val := y.nodes[k].end
			out[y.nodes[k].text] = y.value(val, literal)
			k = y.nodes[val].end
		}
		return out
	}
	switch {
	case v.quoted:
		return v.text
	case literal:
		if v.null() {
			return nil
		}
		return v.text
	}
	return resolvePlain(v.text)
}

// resolvePlain is the value yaml.v3 gives a plain scalar when it decodes
// into an interface: its resolve function, for untagged scalars, in the
// same order (and with its quirks: 0777 is octal, 1_000 is 1000, a date
// is a time.Time).
func resolvePlain(in string) any {
	hint := byte('N')
	if in != "" {
		hint = resolveHint(in[0])
	}
	if hint == 0 {
		return in
	}
	switch in {
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	case "", "~", "null", "Null", "NULL":
		return nil
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(+1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	}
	switch hint {
	case '.':
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return f
		}
	case 'D', 'S':
		if t, ok := parseTimestamp(in); ok {
			return t
		}
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			if i == int64(int(i)) {
				return int(i)
			}
			return i
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return u
		}
		if yamlStyleFloat(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return f
			}
		}
		if v, ok := prefixedInt(plain); ok {
			return v
		}
	}
	return in
}

// prefixedInt reads yaml.v3's 0b (binary) and 0o (octal) integers.
func prefixedInt(plain string) (any, bool) {
	for _, base := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"0o", 8}} {
		if digits, ok := strings.CutPrefix(plain, base.prefix); ok {
			if i, err := strconv.ParseInt(digits, base.base, 64); err == nil {
				if i == int64(int(i)) {
					return int(i), true
				}
				return i, true
			}
			if u, err := strconv.ParseUint(digits, base.base, 64); err == nil {
				return u, true
			}
			return nil, false
		}
		if digits, ok := strings.CutPrefix(plain, "-"+base.prefix); ok {
			if i, err := strconv.ParseInt("-"+digits, base.base, 64); err == nil {
				return int(i), true
			}
			return nil, false
		}
	}
	return nil, false
}

// resolveHint is yaml.v3's first-character hint: 'D' digit, 'S' sign,
// 'M' a letter that may start a word it knows (true, null…), '.' a
// possible float, 0 a string.
func resolveHint(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return 'D'
	case c == '+' || c == '-':
		return 'S'
	case c == '.':
		return '.'
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		return 'M'
	}
	return 0
}

// yamlStyleFloat matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yamlStyleFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// timestampFormats are the layouts yaml.v3 tries, in its order.
var timestampFormats = [...]string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// timestampSeparators holds the byte between date and time that each of
// timestampFormats needs (0: none). A value without it cannot be in that
// format, and trying would cost a time.ParseError each: most dates in
// notes are bare dates, which failed the first three formats before.
var timestampSeparators = [len(timestampFormats)]byte{'T', 't', ' ', 0}

// parseTimestamp is yaml.v3's: a value starting with four digits and a
// dash, in one of timestampFormats.
func parseTimestamp(s string) (time.Time, bool) {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return time.Time{}, false
	}
	for i, format := range timestampFormats {
		if sep := timestampSeparators[i]; sep != 0 && strings.IndexByte(s, sep) < 0 {
			continue
		}
		if t, err := time.Parse(format, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
