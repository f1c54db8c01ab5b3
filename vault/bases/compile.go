package bases

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// Error is a base that cannot be answered: a bad file, an unknown view, an
// expression that does not parse, a function or property the engine does
// not know, a formula cycle, or an expression that fails on a note. Where
// names the part of the base (`formula "ppu"`, `views["Table"].filters.and[1]`),
// Pos the place in its expression when there is one, Path the note being
// evaluated when the failure is one note's.
type Error struct {
	Where string
	Pos   Pos
	Path  string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Where)
	if e.Pos.Line > 0 {
		b.WriteString(" at ")
		b.WriteString(e.Pos.String())
	}
	if e.Path != "" {
		b.WriteString(" on ")
		b.WriteString(e.Path)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// evalFn is a compiled expression.
type evalFn func(e *env) (Value, error)

// runState is what every row of one evaluation shares.
type runState struct {
	ctx      context.Context
	src      Source
	now      time.Time
	loc      *time.Location
	this     *File
	formulas []*formula
	// work is the steps spent so far (see spend); abort, once set, fails
	// the whole query.
	work  int64
	abort error
}

// env is the evaluation of one row.
type env struct {
	rs   *runState
	file *File
	// row is file's place in the source's Files order, and cols and
	// tagged the source's columns for the query's slots (nil entries:
	// none).
	row    int
	cols   [][]Value
	tagged [][]bool
	// fv and fs are the row's formula values and their state (0 not yet,
	// 1 being computed, 2 done).
	fv     []Value
	fs     []uint8
	locals []Value
	stack  []Value
	// work is the steps spent on this file (see spend).
	work int64
}

// formula is one compiled formula.
type formula struct {
	name  string
	src   string
	fn    evalFn
	deps  []int
	where string
}

// compiler turns a syntax tree into closures.
type compiler struct {
	slots    *slots
	where    string
	formulas map[string]int
	deps     []int
	depth    int // lambda nesting: value/index/acc live at 3*(depth-1)
}

func (c *compiler) errAt(n *node, format string, args ...any) error {
	return &Error{Where: c.where, Pos: n.pos, Msg: fmt.Sprintf(format, args...)}
}

// runtimeErr is an expression failing on a value: wrapped with where and
// the row's path when it reaches the caller.
type runtimeErr struct {
	pos Pos
	msg string
}

func (e *runtimeErr) Error() string { return e.pos.String() + ": " + e.msg }

func rtErr(pos Pos, format string, args ...any) error {
	return &runtimeErr{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// compileExpr parses and compiles src.
func (c *compiler) compileExpr(src string) (evalFn, error) {
	n, err := parseExpr(src)
	if err != nil {
		se := err.(*SyntaxError)
		return nil, &Error{Where: c.where, Pos: se.Pos, Msg: se.Msg}
	}
	return c.compile(n)
}

func (c *compiler) compile(n *node) (evalFn, error) {
	switch n.op {
	case opLit:
		v := n.val
		return func(*env) (Value, error) { return v, nil }, nil
	case opIdent:
		return c.ident(n)
	case opMember:
		return c.member(n)
	case opIndex:
		return c.index(n)
	case opCall:
		return c.call(n)
	case opMethod:
		return c.method(n)
	case opUnary:
		x, err := c.compile(n.kids[0])
		if err != nil {
			return nil, err
		}
		pos := n.pos
		switch n.name {
		case "!":
			return func(e *env) (Value, error) {
				v, err := x(e)
				return Bool(!v.Truthy()), err
			}, nil
		case "-":
			return func(e *env) (Value, error) {
				v, err := x(e)
				if err != nil {
					return v, err
				}
				switch v.kind {
				case Number:
					return Num(-v.num), nil
				case Duration:
					return DurationValue(-v.months, -v.num), nil
				case Null:
					return v, nil
				}
				return Value{}, rtErr(pos, "cannot negate a %s", v.kind)
			}, nil
		default:
			return func(e *env) (Value, error) {
				v, err := x(e)
				if err != nil {
					return v, err
				}
				return toNumber(v, pos)
			}, nil
		}
	case opBinary:
		return c.binary(n)
	case opList:
		items, err := c.compileAll(n.kids)
		if err != nil {
			return nil, err
		}
		pos := n.pos
		return func(e *env) (Value, error) {
			out := make([]Value, len(items))
			for i, f := range items {
				v, err := f(e)
				if err != nil {
					return v, err
				}
				out[i] = v
			}
			l := ListValue(out)
			if err := e.spendValue(l, pos); err != nil {
				return Value{}, err
			}
			return l, nil
		}, nil
	case opObject:
		vals, err := c.compileAll(n.kids)
		if err != nil {
			return nil, err
		}
		keys, pos := n.keys, n.pos
		return func(e *env) (Value, error) {
			o := &ObjectValue{Keys: keys, Vals: make([]Value, len(vals))}
			for i, f := range vals {
				v, err := f(e)
				if err != nil {
					return v, err
				}
				o.Vals[i] = v
			}
			ov := ObjectOf(o)
			if err := e.spendValue(ov, pos); err != nil {
				return Value{}, err
			}
			return ov, nil
		}, nil
	}
	return nil, c.errAt(n, "unknown expression")
}

func (c *compiler) compileAll(ns []*node) ([]evalFn, error) {
	out := make([]evalFn, len(ns))
	for i, k := range ns {
		f, err := c.compile(k)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// lambdaSlots are the names bound inside filter(), map() and reduce().
var lambdaSlots = map[string]int{"value": 0, "index": 1, "acc": 2}

func (c *compiler) ident(n *node) (evalFn, error) {
	if slot, ok := lambdaSlots[n.name]; ok && c.depth > 0 {
		at := 3*(c.depth-1) + slot
		return func(e *env) (Value, error) { return e.locals[at], nil }, nil
	}
	switch n.name {
	case "file":
		return func(e *env) (Value, error) { return FileValue(e.file), nil }, nil
	case "this":
		return func(e *env) (Value, error) { return FileValue(e.rs.this), nil }, nil
	case "note":
		return func(e *env) (Value, error) { return ObjectOf(&e.file.Props), nil }, nil
	case "formula":
		return nil, c.errAt(n, "formula must be followed by a formula's name (formula.name)")
	}
	return c.propFn(n.name), nil
}

// propFn reads a note property of the row: from the source's column
// when it gave one (values side by side, read in order: no pointer to
// follow per note), else from the file.
func (c *compiler) propFn(name string) evalFn {
	slot := c.slots.prop(name)
	return func(e *env) (Value, error) {
		if slot < len(e.cols) && e.cols[slot] != nil {
			return e.cols[slot][e.row], nil
		}
		v, _ := e.file.Props.Get(name)
		return v, nil
	}
}

// slots are the properties and tags a query reads on every row, which a
// Source with Columns supplies side by side.
type slots struct {
	props, tags []string
}

func (s *slots) prop(name string) int {
	if i := indexOf(s.props, name); i >= 0 {
		return i
	}
	s.props = append(s.props, name)
	return len(s.props) - 1
}

func (s *slots) tag(name string) int {
	if i := indexOf(s.tags, name); i >= 0 {
		return i
	}
	s.tags = append(s.tags, name)
	return len(s.tags) - 1
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func (c *compiler) formulaRef(n *node, name string) (evalFn, error) {
	i, ok := c.formulas[name]
	if !ok {
		return nil, c.errAt(n, "unknown formula %q", "formula."+name)
	}
	c.deps = append(c.deps, i)
	return formulaFn(i), nil
}

// formulaFn evaluates formula i once per row.
func formulaFn(i int) evalFn {
	return func(e *env) (Value, error) {
		switch e.fs[i] {
		case 2:
			return e.fv[i], nil
		case 1:
			return Value{}, fmt.Errorf("formula %q refers to itself", e.rs.formulas[i].name)
		}
		e.fs[i] = 1
		f := e.rs.formulas[i]
		// A formula sees the row, never the list items of a lambda it is
		// called from.
		v, err := f.fn(e)
		if err != nil {
			e.fs[i] = 0
			if _, ok := err.(*runtimeErr); ok {
				return Value{}, fmt.Errorf("in %s: %w", f.where, err)
			}
			return Value{}, err
		}
		e.fv[i], e.fs[i] = v, 2
		return v, nil
	}
}

// fileFields are the file.* properties.
var fileFields = map[string]bool{
	"name": true, "basename": true, "path": true, "folder": true, "ext": true, "size": true,
	"ctime": true, "mtime": true, "tags": true, "links": true, "backlinks": true, "embeds": true,
	"properties": true, "file": true,
}

func (c *compiler) member(n *node) (evalFn, error) {
	recv := n.kids[0]
	if _, slot := lambdaSlots[recv.name]; recv.op == opIdent && !(slot && c.depth > 0) {
		switch recv.name {
		case "note":
			return c.propFn(n.name), nil
		case "formula":
			return c.formulaRef(n, n.name)
		case "file":
			if !fileFields[n.name] {
				return nil, c.errAt(n, "unknown file property %q", "file."+n.name)
			}
			name := n.name
			return func(e *env) (Value, error) { return fileField(e, e.file, name), nil }, nil
		}
	}
	x, err := c.compile(recv)
	if err != nil {
		return nil, err
	}
	name, pos := n.name, n.pos
	return func(e *env) (Value, error) {
		v, err := x(e)
		if err != nil {
			return v, err
		}
		return memberOf(e, v, name, pos)
	}, nil
}

// memberOf is v.name.
func memberOf(e *env, v Value, name string, pos Pos) (Value, error) {
	switch v.kind {
	case Null:
		return Value{}, nil
	case String:
		if name == "length" {
			return Num(float64(jsLength(v.str))), nil
		}
	case List:
		if name == "length" {
			return Num(float64(len(v.list))), nil
		}
	case Object:
		m, _ := v.Object().Get(name)
		return m, nil
	case Date:
		t := v.Time().In(e.rs.loc)
		switch name {
		case "year":
			return Num(float64(t.Year())), nil
		case "month":
			return Num(float64(t.Month())), nil
		case "day":
			return Num(float64(t.Day())), nil
		case "hour":
			return Num(float64(t.Hour())), nil
		case "minute":
			return Num(float64(t.Minute())), nil
		case "second":
			return Num(float64(t.Second())), nil
		case "millisecond":
			return Num(float64(t.Nanosecond() / 1e6)), nil
		}
	case FileKind:
		f := v.File()
		if fileFields[name] {
			return fileField(e, f, name), nil
		}
		// this.status: a note property of the file.
		m, _ := f.Props.Get(name)
		return m, nil
	case Link:
		// A link stands for its file: link.name, link.status.
		if f := resolveLink(e, v); f != nil {
			return memberOf(e, FileValue(f), name, pos)
		}
		return Value{}, nil
	}
	return Value{}, rtErr(pos, "a %s has no property %q", v.kind, name)
}

// fileField is one of the file.* properties of f.
func fileField(e *env, f *File, name string) Value {
	if f == nil {
		return Value{}
	}
	switch name {
	case "name":
		return Str(f.Name())
	case "basename":
		return Str(f.Basename())
	case "path":
		return Str(f.Path)
	case "folder":
		return Str(f.Folder())
	case "ext":
		return Str(f.Ext())
	case "size":
		return Num(float64(f.Size))
	case "ctime":
		return DateValue(f.CTime, true)
	case "mtime":
		return DateValue(f.MTime, true)
	case "tags":
		out := make([]Value, len(f.Tags))
		for i, t := range f.Tags {
			out[i] = Str("#" + t)
		}
		return ListValue(out)
	case "links":
		return linkList(f.Links, f.Path)
	case "embeds":
		return linkList(f.Embeds, f.Path)
	case "backlinks":
		bl := e.rs.src.Backlinks(f.Path)
		out := make([]Value, len(bl))
		for i, p := range bl {
			out[i] = LinkValue(p, "", Value{})
		}
		return ListValue(out)
	case "properties":
		return ObjectOf(&f.Props)
	case "file":
		return FileValue(f)
	}
	return Value{}
}

func linkList(ls []FileLink, from string) Value {
	out := make([]Value, len(ls))
	for i, l := range ls {
		t := l.Target
		if l.Path != "" {
			t = l.Path
		}
		out[i] = LinkValue(t, from, Value{})
	}
	return ListValue(out)
}

func (c *compiler) index(n *node) (evalFn, error) {
	recv, key := n.kids[0], n.kids[1]
	if recv.op == opIdent && c.depth == 0 && key.op == opLit && key.val.kind == String {
		switch recv.name {
		case "note":
			return c.propFn(key.val.str), nil
		case "formula":
			return c.formulaRef(n, key.val.str)
		case "file":
			if !fileFields[key.val.str] {
				return nil, c.errAt(n, "unknown file property %q", "file."+key.val.str)
			}
		}
	}
	x, err := c.compile(recv)
	if err != nil {
		return nil, err
	}
	k, err := c.compile(key)
	if err != nil {
		return nil, err
	}
	pos := n.pos
	return func(e *env) (Value, error) {
		v, err := x(e)
		if err != nil {
			return v, err
		}
		i, err := k(e)
		if err != nil {
			return i, err
		}
		switch {
		case v.kind == List && i.kind == Number:
			j := int(i.num)
			if j < 0 || j >= len(v.list) || float64(j) != i.num {
				return Value{}, nil
			}
			return v.list[j], nil
		case v.kind == String && i.kind == Number:
			s := jsSlice(v.str, i.num, i.num+1, true)
			if s == "" {
				return Value{}, nil
			}
			return Str(s), nil
		case i.kind == String:
			return memberOf(e, v, i.str, pos)
		case v.kind == Null:
			return Value{}, nil
		}
		return Value{}, rtErr(pos, "cannot index a %s with a %s", v.kind, i.kind)
	}, nil
}

func (c *compiler) binary(n *node) (evalFn, error) {
	l, err := c.compile(n.kids[0])
	if err != nil {
		return nil, err
	}
	r, err := c.compile(n.kids[1])
	if err != nil {
		return nil, err
	}
	pos := n.pos
	switch n.name {
	case "&&":
		return func(e *env) (Value, error) {
			a, err := l(e)
			if err != nil || !a.Truthy() {
				return Bool(false), err
			}
			b, err := r(e)
			return Bool(b.Truthy()), err
		}, nil
	case "||":
		return func(e *env) (Value, error) {
			a, err := l(e)
			if err != nil {
				return a, err
			}
			if a.Truthy() {
				return Bool(true), nil
			}
			b, err := r(e)
			return Bool(b.Truthy()), err
		}, nil
	}
	op := n.name
	if fast := c.fastCompare(n); fast != nil {
		return fast, nil
	}
	var apply func(e *env, a, b Value) (Value, error)
	switch op {
	case "==":
		apply = func(e *env, a, b Value) (Value, error) { return Bool(equal(e, a, b)), nil }
	case "!=":
		apply = func(e *env, a, b Value) (Value, error) { return Bool(!equal(e, a, b)), nil }
	case "<", ">", "<=", ">=":
		apply = func(e *env, a, b Value) (Value, error) {
			c, ok := compare(e, a, b)
			if !ok {
				return Bool(false), nil
			}
			switch op {
			case "<":
				return Bool(c < 0), nil
			case ">":
				return Bool(c > 0), nil
			case "<=":
				return Bool(c <= 0), nil
			}
			return Bool(c >= 0), nil
		}
	default:
		apply = func(e *env, a, b Value) (Value, error) { return arith(e, op, a, b, pos) }
	}
	return func(e *env) (Value, error) {
		a, err := l(e)
		if err != nil {
			return a, err
		}
		b, err := r(e)
		if err != nil {
			return b, err
		}
		return apply(e, a, b)
	}, nil
}

// arith is + - * / % on two values.
func arith(e *env, op string, a, b Value, pos Pos) (Value, error) {
	if a.kind == Number && b.kind == Number {
		switch op {
		case "+":
			return Num(a.num + b.num), nil
		case "-":
			return Num(a.num - b.num), nil
		case "*":
			return Num(a.num * b.num), nil
		case "/":
			return Num(a.num / b.num), nil
		default:
			return Num(math.Mod(a.num, b.num)), nil
		}
	}
	switch op {
	case "+", "-":
		sign := 1
		if op == "-" {
			sign = -1
		}
		if a.kind == Date {
			switch b.kind {
			case Duration:
				return addDuration(a, b, sign, e.rs.loc), nil
			case String:
				if d, ok := parseDuration(b.str); ok {
					return addDuration(a, d, sign, e.rs.loc), nil
				}
				// Joining a date with text would make a typo in a
				// duration ("7 dys") a filter that quietly matches
				// nothing; date.toString() + text joins on purpose.
				return Value{}, rtErr(pos, "%q is not a duration (\"7d\", \"2 weeks\"; to join the date with text, use .toString())", b.str)
			case Date:
				if op == "-" {
					return Num(a.num - b.num), nil
				}
			case Number:
				return Value{kind: Date, num: a.num + float64(sign)*b.num, timed: true}, nil
			case Null:
				return Value{}, nil
			}
		}
		if a.kind == Duration && b.kind == Duration {
			m, ms := float64(a.months)+float64(sign)*float64(b.months), a.num+float64(sign)*b.num
			if math.Abs(m) > maxDurationMonths || math.Abs(ms) > maxDurationMillis {
				return Value{}, rtErr(pos, "the sum of the durations is longer than any two dates are apart")
			}
			return DurationValue(int32(m), ms), nil
		}
		if op == "+" && a.kind == Duration && b.kind == Date {
			return addDuration(b, a, 1, e.rs.loc), nil
		}
		if op == "+" && (a.kind == String || b.kind == String) {
			as, bs := a.String(), b.String()
			if err := e.spendText(len(as)+len(bs), pos); err != nil {
				return Value{}, err
			}
			return Str(as + bs), nil
		}
		if op == "+" && a.kind == List && b.kind == List {
			if err := e.spend(len(a.list)+len(b.list), pos); err != nil {
				return Value{}, err
			}
			out := make([]Value, 0, len(a.list)+len(b.list))
			l := ListValue(append(append(out, a.list...), b.list...))
			if err := e.spendValue(l, pos); err != nil {
				return Value{}, err
			}
			return l, nil
		}
	case "*", "/":
		if a.kind == Duration && b.kind == Number {
			if op == "*" {
				m := float64(a.months) * b.num
				if math.Abs(m) > maxDurationMonths || math.Abs(a.num*b.num) > maxDurationMillis || math.IsNaN(m) {
					return Value{}, rtErr(pos, "the duration times %v is longer than any two dates are apart", b.num)
				}
				return DurationValue(int32(m), a.num*b.num), nil
			}
			return DurationValue(0, durationMillis(a)/b.num), nil
		}
	}
	if a.kind == Null || b.kind == Null {
		return Value{}, nil
	}
	if a.kind == Boolean && b.kind == Number || a.kind == Number && b.kind == Boolean {
		return arith(e, op, Num(a.num), Num(b.num), pos)
	}
	return Value{}, rtErr(pos, "cannot apply %s to a %s and a %s", op, a.kind, b.kind)
}

// resolveLink returns the file a link points at, nil when none.
func resolveLink(e *env, v Value) *File {
	p, ok := e.rs.src.Resolve(v.str, v.link().from)
	if !ok {
		return nil
	}
	f, _ := e.rs.src.File(p)
	return f
}

// linkPath is the path a link resolves to, or its target as written.
func linkPath(e *env, v Value) string {
	if p, ok := e.rs.src.Resolve(v.str, v.link().from); ok {
		return p
	}
	return v.str
}

// equal is ==: values of one kind by value; a link and a file when the
// link resolves to the file; a date and a text that reads as that date.
func equal(e *env, a, b Value) bool {
	if a.kind != b.kind {
		switch {
		case a.kind == Link && b.kind == FileKind:
			return linkPath(e, a) == b.File().Path
		case a.kind == FileKind && b.kind == Link:
			return equal(e, b, a)
		case a.kind == Link && b.kind == String:
			return a.str == b.str || linkPath(e, a) == linkPath(e, LinkValue(b.str, a.link().from, Value{}))
		case a.kind == String && b.kind == Link:
			return equal(e, b, a)
		case a.kind == Date && b.kind == String:
			d, ok := parseDate(b.str, e.rs.loc)
			return ok && d.num == a.num
		case a.kind == String && b.kind == Date:
			return equal(e, b, a)
		}
		return false
	}
	switch a.kind {
	case Null:
		return true
	case String, HTML, Image, Icon:
		return a.str == b.str
	case Number, Boolean, Date:
		return a.num == b.num
	case Duration:
		return a.num == b.num && a.months == b.months
	case List:
		if len(a.list) != len(b.list) {
			return false
		}
		for i := range a.list {
			if !equal(e, a.list[i], b.list[i]) {
				return false
			}
		}
		return true
	case Object:
		x, y := a.Object(), b.Object()
		if len(x.Keys) != len(y.Keys) {
			return false
		}
		for i, k := range x.Keys {
			w, ok := y.Get(k)
			if !ok || !equal(e, x.Vals[i], w) {
				return false
			}
		}
		return true
	case Link:
		return a.str == b.str || linkPath(e, a) == linkPath(e, b)
	case FileKind:
		return a.File().Path == b.File().Path
	case Regexp:
		return a.String() == b.String()
	}
	return false
}

// compare orders two values for < > <= >=; ok is false when they cannot
// be compared (a null, or kinds that do not mix).
func compare(e *env, a, b Value) (int, bool) {
	if a.kind != b.kind {
		switch {
		case a.kind == Date && b.kind == String:
			d, ok := parseDate(b.str, e.rs.loc)
			if !ok {
				return 0, false
			}
			return cmpFloat(a.num, d.num), true
		case a.kind == String && b.kind == Date:
			c, ok := compare(e, b, a)
			return -c, ok
		case a.kind == String && b.kind == Number, a.kind == Number && b.kind == String:
			// As JavaScript does: "6.00" > 5 compares numbers, which is
			// how a formula ending in toFixed() is compared.
			x, errA := toNumber(a, Pos{})
			y, errB := toNumber(b, Pos{})
			if errA != nil || errB != nil || (a.kind == String && strings.TrimSpace(a.str) == "") || (b.kind == String && strings.TrimSpace(b.str) == "") {
				return 0, false
			}
			return cmpFloat(x.num, y.num), true
		case a.kind == Duration && b.kind == Number, a.kind == Number && b.kind == Duration:
			// A number is milliseconds, as a duration reads as number().
			return cmpFloat(durationMillis(a), durationMillis(b)), true
		}
		return 0, false
	}
	switch a.kind {
	case Number, Date, Boolean:
		return cmpFloat(a.num, b.num), true
	case Duration:
		return cmpFloat(durationMillis(a), durationMillis(b)), true
	case String:
		return strings.Compare(a.str, b.str), true
	case Link:
		return strings.Compare(a.str, b.str), true
	case FileKind:
		return strings.Compare(a.File().Path, b.File().Path), true
	}
	return 0, false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sortRank orders kinds among themselves when a sort meets mixed values.
var sortRank = [...]int{Null: 99, Number: 1, Boolean: 0, Date: 2, Duration: 3, String: 4, Link: 5, FileKind: 6, List: 7, Object: 8}

// sortCompare orders two values for a view's sort: empty values last,
// text without regard to case (then with), other kinds by compare.
func sortCompare(e *env, a, b Value) int {
	an, bn := a.isEmpty(), b.isEmpty()
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	if a.kind == String && b.kind == String {
		if c := compareFold(a.str, b.str); c != 0 {
			return c
		}
		return strings.Compare(a.str, b.str)
	}
	if a.kind == b.kind || a.kind == Date && b.kind == String || a.kind == String && b.kind == Date {
		if c, ok := compare(e, a, b); ok {
			return c
		}
	}
	if a.kind == List && b.kind == List {
		for i := 0; i < len(a.list) && i < len(b.list); i++ {
			if c := sortCompare(e, a.list[i], b.list[i]); c != 0 {
				return c
			}
		}
		return len(a.list) - len(b.list)
	}
	ra, rb := rankOf(a.kind), rankOf(b.kind)
	if ra != rb {
		return ra - rb
	}
	return strings.Compare(a.String(), b.String())
}

func rankOf(k Kind) int {
	if int(k) < len(sortRank) {
		return sortRank[k]
	}
	return 50
}

// compareFold compares two texts ignoring case, without allocating for
// ASCII.
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x >= 0x80 || y >= 0x80 {
			return strings.Compare(strings.ToLower(a[i:]), strings.ToLower(b[i:]))
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

// fastCompare compiles the commonest filter, a note property compared
// with == or != to a text, number or boolean literal (status == "open"),
// without the general path's copies of values: it runs on every note of
// the vault. nil when n is not of that form.
func (c *compiler) fastCompare(n *node) evalFn {
	op := n.name
	switch op {
	case "==", "!=", "<", ">", "<=", ">=":
	default:
		return nil
	}
	prop, lit := n.kids[0], n.kids[1]
	if prop.op == opLit {
		prop, lit = lit, prop
		// 3 < rating is rating > 3.
		op = map[string]string{"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}[op]
	}
	if lit.op != opLit || lit.val.kind != String && lit.val.kind != Number && lit.val.kind != Boolean {
		return nil
	}
	if op != "==" && op != "!=" {
		if lit.val.kind != Number {
			return nil
		}
		return c.fastOrder(prop, op, lit.val.num)
	}
	name := ""
	switch {
	case prop.op == opIdent && !(c.depth > 0 && isLambdaSlot(prop.name)) && !reserved[prop.name]:
		name = prop.name
	case prop.op == opMember && prop.kids[0].op == opIdent && prop.kids[0].name == "note" && c.depth == 0:
		name = prop.name
	default:
		return nil
	}
	want, neg := lit.val, op == "!="
	slot := c.slots.prop(name)
	return func(e *env) (Value, error) {
		var v *Value
		if slot < len(e.cols) && e.cols[slot] != nil {
			v = &e.cols[slot][e.row]
			if v.kind == Null {
				v = nil
			}
		} else {
			v = e.file.Props.ptr(name)
		}
		var eq bool
		switch {
		case v == nil:
			eq = false
		case v.kind == want.kind:
			eq = v.num == want.num && v.str == want.str
		default:
			eq = equal(e, *v, want)
		}
		return Bool(eq != neg), nil
	}
}

// reserved are the names an identifier cannot use for a note property.
var reserved = map[string]bool{"file": true, "this": true, "note": true, "formula": true}

func isLambdaSlot(name string) bool {
	_, ok := lambdaSlots[name]
	return ok
}

// fastOrder compiles a note property compared with < > <= >= to a number
// literal (rating >= 3), for the same reason as fastCompare.
func (c *compiler) fastOrder(prop *node, op string, want float64) evalFn {
	name := ""
	switch {
	case prop.op == opIdent && !(c.depth > 0 && isLambdaSlot(prop.name)) && !reserved[prop.name]:
		name = prop.name
	case prop.op == opMember && prop.kids[0].op == opIdent && prop.kids[0].name == "note" && c.depth == 0:
		name = prop.name
	default:
		return nil
	}
	slot := c.slots.prop(name)
	wantV := Num(want)
	return func(e *env) (Value, error) {
		var v *Value
		if slot < len(e.cols) && e.cols[slot] != nil {
			v = &e.cols[slot][e.row]
		} else {
			v = e.file.Props.ptr(name)
		}
		var cmp int
		switch {
		case v == nil:
			return Bool(false), nil
		case v.kind == Number:
			cmp = cmpFloat(v.num, want)
		default:
			k, ok := compare(e, *v, wantV)
			if !ok {
				return Bool(false), nil
			}
			cmp = k
		}
		switch op {
		case "<":
			return Bool(cmp < 0), nil
		case ">":
			return Bool(cmp > 0), nil
		case "<=":
			return Bool(cmp <= 0), nil
		}
		return Bool(cmp >= 0), nil
	}
}
