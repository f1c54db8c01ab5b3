package bases

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a place in an expression: 1-based line and column (in
// characters).
type Pos struct{ Line, Col int }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// SyntaxError is an expression that does not parse.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return e.Pos.String() + ": " + e.Msg }

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tStr
	tIdent
	tRegex
	tPunct
)

type token struct {
	kind tokKind
	text string // punctuation or identifier; a string's decoded text; a regex's source
	num  float64
	flag string // a regex's flags
	pos  Pos
}

// lexer splits an expression into tokens.
type lexer struct {
	src       string
	i         int
	line, col int
	prev      tokKind
	prevText  string
}

func (lx *lexer) pos() Pos { return Pos{lx.line, lx.col} }

func (lx *lexer) advance(n int) {
	for k := 0; k < n && lx.i < len(lx.src); k++ {
		r, w := utf8.DecodeRuneInString(lx.src[lx.i:])
		lx.i += w
		if r == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
	}
}

// operandEnded reports whether the previous token ends an operand, which
// makes a following '/' a division rather than a regular expression.
func (lx *lexer) operandEnded() bool {
	switch lx.prev {
	case tNum, tStr, tIdent, tRegex:
		return true
	case tPunct:
		return lx.prevText == ")" || lx.prevText == "]" || lx.prevText == "}"
	}
	return false
}

var puncts = []string{"==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ".", ":", "+", "-", "*", "/", "%", "!", "<", ">"}

func (lx *lexer) next() (token, error) {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			lx.advance(1)
			continue
		}
		break
	}
	p := lx.pos()
	if lx.i >= len(lx.src) {
		return token{kind: tEOF, pos: p}, nil
	}
	c := lx.src[lx.i]
	var t token
	switch {
	case c >= '0' && c <= '9' || c == '.' && lx.i+1 < len(lx.src) && isDigit(lx.src[lx.i+1]) && !lx.operandEnded():
		j := lx.i
		for j < len(lx.src) && isDigit(lx.src[j]) {
			j++
		}
		// A '.' followed by a digit continues the number; followed by a
		// letter it is a method call on an integer (1.isTruthy()).
		if j+1 < len(lx.src) && lx.src[j] == '.' && isDigit(lx.src[j+1]) {
			j++
			for j < len(lx.src) && isDigit(lx.src[j]) {
				j++
			}
		}
		if j < len(lx.src) && (lx.src[j] == 'e' || lx.src[j] == 'E') {
			k := j + 1
			if k < len(lx.src) && (lx.src[k] == '+' || lx.src[k] == '-') {
				k++
			}
			if k < len(lx.src) && isDigit(lx.src[k]) {
				for k < len(lx.src) && isDigit(lx.src[k]) {
					k++
				}
				j = k
			}
		}
		f, err := strconv.ParseFloat(lx.src[lx.i:j], 64)
		if err != nil {
			return t, &SyntaxError{p, fmt.Sprintf("bad number %q", lx.src[lx.i:j])}
		}
		t = token{kind: tNum, num: f, text: lx.src[lx.i:j], pos: p}
		lx.advance(j - lx.i)
	case c == '"' || c == '\'':
		s, n, err := unquote(lx.src[lx.i:])
		if err != nil {
			return t, &SyntaxError{p, err.Error()}
		}
		t = token{kind: tStr, text: s, pos: p}
		lx.advance(utf8.RuneCountInString(lx.src[lx.i : lx.i+n]))
	case c == '/' && !lx.operandEnded():
		j := lx.i + 1
		inClass := false
		for ; j < len(lx.src); j++ {
			ch := lx.src[j]
			if ch == '\\' {
				j++
				continue
			}
			if ch == '\n' {
				break
			}
			if ch == '[' {
				inClass = true
			} else if ch == ']' {
				inClass = false
			} else if ch == '/' && !inClass {
				break
			}
		}
		if j >= len(lx.src) || lx.src[j] != '/' {
			return t, &SyntaxError{p, "regular expression has no closing /"}
		}
		src := lx.src[lx.i+1 : j]
		k := j + 1
		for k < len(lx.src) && isIdentByte(lx.src[k]) {
			k++
		}
		t = token{kind: tRegex, text: src, flag: lx.src[j+1 : k], pos: p}
		lx.advance(utf8.RuneCountInString(lx.src[lx.i:k]))
	case isIdentStart(lx.src[lx.i:]):
		j := lx.i
		for j < len(lx.src) {
			r, w := utf8.DecodeRuneInString(lx.src[j:])
			if r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) {
				j += w
				continue
			}
			break
		}
		t = token{kind: tIdent, text: lx.src[lx.i:j], pos: p}
		lx.advance(utf8.RuneCountInString(t.text))
	default:
		for _, pu := range puncts {
			if strings.HasPrefix(lx.src[lx.i:], pu) {
				t = token{kind: tPunct, text: pu, pos: p}
				lx.advance(len(pu))
				break
			}
		}
		if t.text == "" {
			r, _ := utf8.DecodeRuneInString(lx.src[lx.i:])
			return t, &SyntaxError{p, fmt.Sprintf("unexpected character %q", r)}
		}
	}
	lx.prev, lx.prevText = t.kind, t.text
	return t, nil
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isIdentByte(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

// unquote decodes the string literal at the start of s (quote included)
// and says how many bytes it took.
func unquote(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'u':
				if i+4 < len(s) {
					if n, err := strconv.ParseUint(s[i+1:i+5], 16, 32); err == nil {
						b.WriteRune(rune(n))
						i += 4
						continue
					}
				}
				b.WriteByte('u')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("string has no closing %c", q)
}

// nodeOp is what a syntax tree node is.
type nodeOp uint8

const (
	opLit    nodeOp = iota // val
	opIdent                // name
	opMember               // kids[0].name
	opIndex                // kids[0][kids[1]]
	opCall                 // name(kids...)
	opMethod               // kids[0].name(kids[1:]...)
	opUnary                // name kids[0]
	opBinary               // kids[0] name kids[1]
	opList                 // [kids...]
	opObject               // {keys[i]: kids[i]}
)

// node is one node of an expression's syntax tree.
type node struct {
	op   nodeOp
	pos  Pos
	name string
	val  Value
	kids []*node
	keys []string
}

// maxDepth bounds nesting, so a hostile expression cannot exhaust the
// stack.
const maxDepth = 200

type parser struct {
	lx    lexer
	tok   token
	depth int
}

// parseExpr parses one expression.
func parseExpr(src string) (*node, error) {
	p := &parser{lx: lexer{src: src, line: 1, col: 1}}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, &SyntaxError{p.tok.pos, "empty expression"}
	}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("unexpected %s after the expression", p.tok.describe())}
	}
	return n, nil
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tNum:
		return "number " + t.text
	case tStr:
		return strconv.Quote(t.text)
	case tRegex:
		return "regular expression"
	}
	return strconv.Quote(t.text)
}

func (p *parser) next() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) is(punct string) bool { return p.tok.kind == tPunct && p.tok.text == punct }

func (p *parser) expect(punct string) error {
	if !p.is(punct) {
		return &SyntaxError{p.tok.pos, fmt.Sprintf("expected %q, found %s", punct, p.tok.describe())}
	}
	return p.next()
}

var binaryLevels = [][]string{{"||"}, {"&&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"+", "-"}, {"*", "/", "%"}}

func (p *parser) expr() (*node, error) { return p.binary(0) }

func (p *parser) binary(level int) (*node, error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tPunct {
		op := ""
		for _, o := range binaryLevels[level] {
			if p.tok.text == o {
				op = o
			}
		}
		if op == "" {
			break
		}
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		left = &node{op: opBinary, pos: pos, name: op, kids: []*node{left, right}}
	}
	return left, nil
}

func (p *parser) unary() (*node, error) {
	if p.is("!") || p.is("-") || p.is("+") {
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("expression nested more than %d deep", maxDepth)}
		}
		op, pos := p.tok.text, p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		if op == "-" && x.op == opLit && x.val.kind == Number {
			x.val.num = -x.val.num
			x.pos = pos
			return x, nil
		}
		return &node{op: opUnary, pos: pos, name: op, kids: []*node{x}}, nil
	}
	return p.postfix()
}

func (p *parser) postfix() (*node, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.is("."):
			if err := p.next(); err != nil {
				return nil, err
			}
			if p.tok.kind != tIdent {
				return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("expected a name after '.', found %s", p.tok.describe())}
			}
			name, pos := p.tok.text, p.tok.pos
			if err := p.next(); err != nil {
				return nil, err
			}
			if p.is("(") {
				args, err := p.args(")")
				if err != nil {
					return nil, err
				}
				x = &node{op: opMethod, pos: pos, name: name, kids: append([]*node{x}, args...)}
			} else {
				x = &node{op: opMember, pos: pos, name: name, kids: []*node{x}}
			}
		case p.is("["):
			pos := p.tok.pos
			if err := p.next(); err != nil {
				return nil, err
			}
			i, err := p.nested()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &node{op: opIndex, pos: pos, kids: []*node{x, i}}
		default:
			return x, nil
		}
	}
}

// nested parses a sub-expression, counting the depth.
func (p *parser) nested() (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("expression nested more than %d deep", maxDepth)}
	}
	return p.expr()
}

// args parses a comma-separated list up to close; the opening bracket is
// the current token.
func (p *parser) args(close string) ([]*node, error) {
	if err := p.next(); err != nil {
		return nil, err
	}
	var out []*node
	for !p.is(close) {
		a, err := p.nested()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		if p.is(",") {
			if err := p.next(); err != nil {
				return nil, err
			}
			continue
		}
		if !p.is(close) {
			return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("expected ',' or %q, found %s", close, p.tok.describe())}
		}
	}
	return out, p.next()
}

func (p *parser) primary() (*node, error) {
	t := p.tok
	switch t.kind {
	case tNum:
		return &node{op: opLit, pos: t.pos, val: Num(t.num)}, p.next()
	case tStr:
		return &node{op: opLit, pos: t.pos, val: Str(t.text)}, p.next()
	case tRegex:
		v, err := compileRegex(t.text, t.flag)
		if err != nil {
			return nil, &SyntaxError{t.pos, err.Error()}
		}
		return &node{op: opLit, pos: t.pos, val: v}, p.next()
	case tIdent:
		if err := p.next(); err != nil {
			return nil, err
		}
		switch t.text {
		case "true":
			return &node{op: opLit, pos: t.pos, val: Bool(true)}, nil
		case "false":
			return &node{op: opLit, pos: t.pos, val: Bool(false)}, nil
		case "null":
			return &node{op: opLit, pos: t.pos}, nil
		}
		if p.is("(") {
			args, err := p.args(")")
			if err != nil {
				return nil, err
			}
			return &node{op: opCall, pos: t.pos, name: t.text, kids: args}, nil
		}
		return &node{op: opIdent, pos: t.pos, name: t.text}, nil
	case tPunct:
		switch t.text {
		case "(":
			if err := p.next(); err != nil {
				return nil, err
			}
			x, err := p.nested()
			if err != nil {
				return nil, err
			}
			return x, p.expect(")")
		case "[":
			items, err := p.args("]")
			if err != nil {
				return nil, err
			}
			return &node{op: opList, pos: t.pos, kids: items}, nil
		case "{":
			return p.object()
		}
	}
	return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected %s", t.describe())}
}

func (p *parser) object() (*node, error) {
	n := &node{op: opObject, pos: p.tok.pos}
	if err := p.next(); err != nil {
		return nil, err
	}
	for !p.is("}") {
		if p.tok.kind != tStr && p.tok.kind != tIdent {
			return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("expected an object key, found %s", p.tok.describe())}
		}
		n.keys = append(n.keys, p.tok.text)
		if err := p.next(); err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.nested()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, v)
		if p.is(",") {
			if err := p.next(); err != nil {
				return nil, err
			}
			continue
		}
		if !p.is("}") {
			return nil, &SyntaxError{p.tok.pos, fmt.Sprintf("expected ',' or '}', found %s", p.tok.describe())}
		}
	}
	return n, p.next()
}

// compileRegex turns a JavaScript regular expression literal into Go's
// RE2 form. Flags i, m and s map to RE2's; g is kept for replace(); u and
// y change nothing RE2 does.
func compileRegex(src, flags string) (Value, error) {
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			if !strings.ContainsRune(prefix, f) {
				prefix += string(f)
			}
		case 'g', 'u', 'y', 'd':
		default:
			return Value{}, fmt.Errorf("unknown regular expression flag %q", f)
		}
	}
	goSrc := src
	if prefix != "" {
		goSrc = "(?" + prefix + ")" + src
	}
	re, err := regexp.Compile(goSrc)
	if err != nil {
		return Value{}, fmt.Errorf("regular expression /%s/ is not supported: %v (lookaround and backreferences are not)", src, err)
	}
	return Value{kind: Regexp, ref: &regexValue{re: re, source: src, flags: flags}}, nil
}
