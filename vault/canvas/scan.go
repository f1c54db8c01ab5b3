package canvas

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// value is one JSON value of a canvas with where it lies in the source:
// the tree edits are planned on, so that a change touches only the bytes
// of the values it changes.
type value struct {
	kind       byte // '{', '[', '"', '0' (number), 't', 'f' or 'n'
	start, end int  // src[start:end] is the value as written
	members    []member
	elems      []*value
}

// member is one key of an object and its value.
type member struct {
	key      string
	keyStart int // where the key's opening quote is
	val      *value
}

// get returns the value of key in the object v (the last one, as
// JSON.parse keeps), or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != '{' {
		return nil
	}
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// maxDepth bounds the nesting the scanner follows: a canvas is three
// levels deep, and a hostile file must not exhaust the stack.
const maxDepth = 1000

// scanner builds the value tree of a document json.Valid accepted, so it
// does not check the grammar again beyond what it needs to stay in
// bounds.
type scanner struct {
	src   []byte
	pos   int
	depth int
}

// scan returns the tree of src, which must be valid JSON.
func scan(src []byte) (*value, error) {
	if !json.Valid(src) {
		var x any
		err := json.Unmarshal(src, &x)
		if se, ok := err.(*json.SyntaxError); ok {
			// Offset counts the bytes read, the bad one included.
			line, col := lineCol(src, int(se.Offset)-1)
			return nil, fmt.Errorf("not valid JSON at line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	s := &scanner{src: src}
	v, err := s.value()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(src []byte, off int) (int, int) {
	off = min(max(off, 0), len(src))
	line, col := 1, 1
	for _, c := range src[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func (s *scanner) skip() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value() (*value, error) {
	s.skip()
	if s.pos >= len(s.src) {
		return nil, fmt.Errorf("not valid JSON: unexpected end")
	}
	v := &value{start: s.pos}
	switch c := s.src[s.pos]; c {
	case '{', '[':
		if s.depth++; s.depth > maxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		defer func() { s.depth-- }()
		v.kind = c
		s.pos++
		if err := s.container(v); err != nil {
			return nil, err
		}
	case '"':
		v.kind = '"'
		s.pos = stringEnd(s.src, s.pos)
	case 't', 'f', 'n':
		v.kind = c
		for s.pos < len(s.src) && s.src[s.pos] >= 'a' && s.src[s.pos] <= 'z' {
			s.pos++
		}
	default:
		v.kind = '0'
		for s.pos < len(s.src) && isNumberByte(s.src[s.pos]) {
			s.pos++
		}
	}
	v.end = s.pos
	return v, nil
}

func (s *scanner) container(v *value) error {
	closing := byte(']')
	if v.kind == '{' {
		closing = '}'
	}
	s.skip()
	if s.pos < len(s.src) && s.src[s.pos] == closing {
		s.pos++
		return nil
	}
	for {
		s.skip()
		if v.kind == '{' {
			keyStart := s.pos
			s.pos = stringEnd(s.src, s.pos)
			key := decodeString(s.src[keyStart:s.pos])
			s.skip()
			s.pos++ // ':'
			val, err := s.value()
			if err != nil {
				return err
			}
			v.members = append(v.members, member{key: key, keyStart: keyStart, val: val})
		} else {
			val, err := s.value()
			if err != nil {
				return err
			}
			v.elems = append(v.elems, val)
		}
		s.skip()
		if s.pos >= len(s.src) {
			return fmt.Errorf("not valid JSON: unexpected end")
		}
		c := s.src[s.pos]
		s.pos++
		if c == closing {
			return nil
		}
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// stringEnd returns the offset just past the string starting at the quote
// at src[i].
func stringEnd(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

// decodeString returns the text of the JSON string token tok.
func decodeString(tok []byte) string {
	if len(tok) >= 2 {
		inner := tok[1 : len(tok)-1]
		plain := utf8.Valid(inner)
		for _, c := range inner {
			if c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(inner)
		}
	}
	var s string
	_ = json.Unmarshal(tok, &s) // json.Valid passed: a string token decodes
	return s
}

// encodeString writes s as a JSON string the way JSON.stringify does:
// no escaping of <, > and &, which Go's encoder escapes by default.
func encodeString(s string) []byte {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
