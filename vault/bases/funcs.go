package bases

import (
	"fmt"
	"html"
	"math"
	"math/bits"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"vaultmcp/vault/daily"
)

// globalFunc is a function called without a receiver: date("…").
type globalFunc struct {
	min, max int // argument counts; max -1: any number
	eager    func(e *env, args []Value, pos Pos) (Value, error)
	// lazy gets its arguments unevaluated (if()).
	lazy func(e *env, args []evalFn, pos Pos) (Value, error)
}

var globals map[string]globalFunc

func init() {
	globals = map[string]globalFunc{
		"escapeHTML": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			return Str(html.EscapeString(a[0].String())), nil
		}, nil},
		"date": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			switch a[0].kind {
			case Date, Null:
				return a[0], nil
			case Number:
				return Value{kind: Date, num: a[0].num, timed: true}, nil
			}
			if d, ok := parseDate(a[0].String(), e.rs.loc); ok {
				return d, nil
			}
			return Value{}, rtErr(pos, "date(): %q is not a date (YYYY-MM-DD or YYYY-MM-DD HH:mm:ss)", a[0].String())
		}, nil},
		"duration": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			switch a[0].kind {
			case Duration, Null:
				return a[0], nil
			case Number:
				return DurationValue(0, a[0].num), nil
			}
			if d, ok := parseDuration(a[0].String()); ok {
				return d, nil
			}
			return Value{}, rtErr(pos, "duration(): %q is not a duration (e.g. \"1d\", \"2 weeks\")", a[0].String())
		}, nil},
		"file": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			switch a[0].kind {
			case FileKind, Null:
				return a[0], nil
			case Link:
				return FileValue(resolveLink(e, a[0])), nil
			}
			p := a[0].String()
			if f, ok := e.rs.src.File(p); ok {
				return FileValue(f), nil
			}
			if r, ok := e.rs.src.Resolve(strings.TrimSuffix(strings.TrimPrefix(p, "[["), "]]"), ""); ok {
				if f, ok := e.rs.src.File(r); ok {
					return FileValue(f), nil
				}
			}
			return Value{}, nil
		}, nil},
		"html": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			return Value{kind: HTML, str: a[0].String()}, nil
		}, nil},
		"if": {2, 3, nil, func(e *env, a []evalFn, pos Pos) (Value, error) {
			c, err := a[0](e)
			if err != nil {
				return c, err
			}
			if c.Truthy() {
				return a[1](e)
			}
			if len(a) == 3 {
				return a[2](e)
			}
			return Value{}, nil
		}},
		"image": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			s := a[0].String()
			switch a[0].kind {
			case Link:
				s = linkPath(e, a[0])
			case Null:
				return Value{}, nil
			}
			return Value{kind: Image, str: s}, nil
		}, nil},
		"icon": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			return Value{kind: Icon, str: a[0].String()}, nil
		}, nil},
		"link": {1, 2, func(e *env, a []Value, pos Pos) (Value, error) {
			var display Value
			if len(a) == 2 {
				display = a[1]
			}
			switch a[0].kind {
			case FileKind:
				return LinkValue(a[0].File().Path, "", display), nil
			case Link:
				if len(a) == 1 {
					return a[0], nil
				}
				return LinkValue(a[0].str, a[0].link().from, display), nil
			case Null:
				return Value{}, nil
			}
			t, d := parseWikilink(a[0].String())
			if display.IsNull() && d != "" {
				display = Str(d)
			}
			return LinkValue(t, "", display), nil
		}, nil},
		"list": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) {
			if a[0].kind == List {
				return a[0], nil
			}
			return ListValue([]Value{a[0]}), nil
		}, nil},
		"max": {1, -1, func(e *env, a []Value, pos Pos) (Value, error) { return extreme(a, pos, "max", 1) }, nil},
		"min": {1, -1, func(e *env, a []Value, pos Pos) (Value, error) { return extreme(a, pos, "min", -1) }, nil},
		"now": {0, 0, func(e *env, a []Value, pos Pos) (Value, error) {
			return DateValue(e.rs.now, true), nil
		}, nil},
		"today": {0, 0, func(e *env, a []Value, pos Pos) (Value, error) {
			t := e.rs.now.In(e.rs.loc)
			return DateValue(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, e.rs.loc), false), nil
		}, nil},
		"number": {1, 1, func(e *env, a []Value, pos Pos) (Value, error) { return toNumber(a[0], pos) }, nil},
		"random": {0, 0, func(e *env, a []Value, pos Pos) (Value, error) { return Num(rand.Float64()), nil }, nil},
	}
}

// parseWikilink strips [[ ]] and splits off a |display.
func parseWikilink(s string) (target, display string) {
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
		if i := strings.IndexByte(s, '|'); i >= 0 {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

func extreme(a []Value, pos Pos, name string, sign int) (Value, error) {
	var best Value
	for _, v := range a {
		if v.kind == List {
			r, err := extreme(v.list, pos, name, sign)
			if err != nil {
				return r, err
			}
			v = r
		}
		switch v.kind {
		case Null:
			continue
		case Number, Date:
		default:
			return Value{}, rtErr(pos, "%s(): %s is not a number", name, v.kind)
		}
		if best.kind == Null || cmpFloat(v.num, best.num) == sign {
			best = v
		}
	}
	return best, nil
}

// toNumber is number().
func toNumber(v Value, pos Pos) (Value, error) {
	switch v.kind {
	case Number:
		return v, nil
	case Boolean, Date:
		return Num(v.num), nil
	case Duration:
		return Num(durationMillis(v)), nil
	case Null:
		return Num(0), nil
	case String:
		s := strings.TrimSpace(v.str)
		if s == "" {
			return Num(0), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return Num(f), nil
		}
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return Num(float64(i)), nil
		}
		return Value{}, rtErr(pos, "number(): %q is not a number", v.str)
	}
	return Value{}, rtErr(pos, "number(): a %s is not a number", v.kind)
}

func (c *compiler) call(n *node) (evalFn, error) {
	g, ok := globals[n.name]
	if !ok {
		return nil, c.errAt(n, "unknown function %s()", n.name)
	}
	if len(n.kids) < g.min || g.max >= 0 && len(n.kids) > g.max {
		return nil, c.errAt(n, "%s() takes %s, not %d", n.name, arity(g.min, g.max), len(n.kids))
	}
	args, err := c.compileAll(n.kids)
	if err != nil {
		return nil, err
	}
	pos := n.pos
	if g.lazy != nil {
		return func(e *env) (Value, error) { return g.lazy(e, args, pos) }, nil
	}
	return func(e *env) (Value, error) {
		base := len(e.stack)
		for _, a := range args {
			v, err := a(e)
			if err != nil {
				e.stack = e.stack[:base]
				return v, err
			}
			e.stack = append(e.stack, v)
		}
		v, err := g.eager(e, e.stack[base:], pos)
		e.stack = e.stack[:base]
		return v, err
	}, nil
}

func arity(lo, hi int) string {
	switch {
	case hi < 0:
		return fmt.Sprintf("at least %d arguments", lo)
	case lo == hi && lo == 1:
		return "1 argument"
	case lo == hi:
		return fmt.Sprintf("%d arguments", lo)
	}
	return fmt.Sprintf("%d to %d arguments", lo, hi)
}

// methodArity lists every method and how many arguments it takes, over
// all the kinds that have it.
var methodArity = map[string][2]int{
	// any
	"isTruthy": {0, 0}, "isType": {1, 1}, "toString": {0, 0}, "isEmpty": {0, 0},
	// date
	"date": {0, 0}, "format": {1, 1}, "time": {0, 0}, "relative": {0, 0},
	// string and list
	"contains": {1, 1}, "containsAll": {1, -1}, "containsAny": {1, -1}, "endsWith": {1, 1},
	"lower": {0, 0}, "replace": {2, 2}, "repeat": {1, 1}, "reverse": {0, 0}, "slice": {1, 2},
	"split": {1, 2}, "startsWith": {1, 1}, "title": {0, 0}, "trim": {0, 0},
	// number
	"abs": {0, 0}, "ceil": {0, 0}, "floor": {0, 0}, "round": {0, 1}, "toFixed": {1, 1},
	// list
	"filter": {1, 1}, "flat": {0, 0}, "join": {1, 1}, "map": {1, 1}, "reduce": {2, 2}, "sort": {0, 0}, "unique": {0, 0},
	// link
	"asFile": {0, 0}, "linksTo": {1, 1},
	// file
	"asLink": {0, 1}, "hasLink": {1, 1}, "hasProperty": {1, 1}, "hasTag": {1, -1}, "inFolder": {1, 1},
	// object
	"keys": {0, 0}, "values": {0, 0},
	// regexp
	"matches": {1, 1},
}

func (c *compiler) method(n *node) (evalFn, error) {
	ar, ok := methodArity[n.name]
	if !ok {
		return nil, c.errAt(n, "unknown function %s()", n.name)
	}
	nargs := len(n.kids) - 1
	if nargs < ar[0] || ar[1] >= 0 && nargs > ar[1] {
		return nil, c.errAt(n, "%s() takes %s, not %d", n.name, arity(ar[0], ar[1]), nargs)
	}
	recv, err := c.compile(n.kids[0])
	if err != nil {
		return nil, err
	}
	name, pos := n.name, n.pos
	switch name {
	case "filter", "map", "reduce":
		c.depth++
		body, err := c.compile(n.kids[1])
		c.depth--
		if err != nil {
			return nil, err
		}
		var init evalFn
		if name == "reduce" {
			if init, err = c.compile(n.kids[2]); err != nil {
				return nil, err
			}
		}
		slot := 3 * c.depth
		return func(e *env) (Value, error) {
			l, err := recv(e)
			if err != nil {
				return l, err
			}
			switch l.kind {
			case Null:
				return Value{}, nil
			case List:
			default:
				return Value{}, rtErr(pos, "%s() needs a list, not a %s", name, l.kind)
			}
			return lambda(e, name, l.list, body, init, slot, pos)
		}, nil
	}
	if fast := c.fastHasTag(n); fast != nil {
		return fast, nil
	}
	args, err := c.compileAll(n.kids[1:])
	if err != nil {
		return nil, err
	}
	return func(e *env) (Value, error) {
		r, err := recv(e)
		if err != nil {
			return r, err
		}
		base := len(e.stack)
		for _, a := range args {
			v, err := a(e)
			if err != nil {
				e.stack = e.stack[:base]
				return v, err
			}
			e.stack = append(e.stack, v)
		}
		v, err := callMethod(e, name, r, e.stack[base:], pos)
		e.stack = e.stack[:base]
		return v, err
	}, nil
}

// lambda runs filter(), map() or reduce() over items, binding value,
// index and acc at slot.
func lambda(e *env, name string, items []Value, body, init evalFn, slot int, pos Pos) (Value, error) {
	if need := slot + 3; len(e.locals) < need {
		e.locals = append(e.locals, make([]Value, need-len(e.locals))...)
	}
	var acc Value
	if init != nil {
		v, err := init(e)
		if err != nil {
			return v, err
		}
		acc = v
	}
	var out []Value
	for i, it := range items {
		if err := e.spend(1, pos); err != nil {
			return Value{}, err
		}
		e.locals[slot], e.locals[slot+1], e.locals[slot+2] = it, Num(float64(i)), acc
		v, err := body(e)
		if err != nil {
			return v, err
		}
		switch name {
		case "filter":
			if v.Truthy() {
				out = append(out, it)
			}
		case "map":
			out = append(out, v)
		default:
			acc = v
		}
	}
	if name == "reduce" {
		return acc, nil
	}
	l := ListValue(out)
	if err := e.spendValue(l, pos); err != nil {
		return Value{}, err
	}
	return l, nil
}

// callMethod calls recv.name(args...).
func callMethod(e *env, name string, recv Value, args []Value, pos Pos) (Value, error) {
	switch name {
	case "isTruthy":
		return Bool(recv.Truthy()), nil
	case "isType":
		want := strings.ToLower(args[0].String())
		got := recv.kind.String()
		return Bool(want == got || want == "bool" && got == "boolean" || want == "array" && got == "list"), nil
	case "toString":
		return Str(recv.String()), nil
	case "isEmpty":
		return Bool(recv.isEmpty()), nil
	}
	var v Value
	var err error
	var ok bool
	switch recv.kind {
	case Null:
		// Optional chaining: a missing property's methods give null, so a
		// note without the property neither errs nor matches.
		return Value{}, nil
	case String:
		v, ok, err = stringMethod(e, name, recv.str, args, pos)
	case Number:
		v, ok, err = numberMethod(name, recv.num, args, pos)
	case Date:
		v, ok, err = dateMethod(e, name, recv, args, pos)
	case List:
		v, ok, err = listMethod(e, name, recv.list, args, pos)
	case Link:
		v, ok, err = linkMethod(e, name, recv, args, pos)
	case FileKind:
		v, ok, err = fileMethod(e, name, recv.File(), args, pos)
	case Object:
		o := recv.Object()
		switch name {
		case "keys":
			out := make([]Value, len(o.Keys))
			for i, k := range o.Keys {
				out[i] = Str(k)
			}
			return ListValue(out), nil
		case "values":
			return ListValue(slices.Clone(o.Vals)), nil
		}
	case Regexp:
		if name == "matches" {
			return Bool(recv.ref.(*regexValue).re.MatchString(args[0].String())), nil
		}
	}
	if err != nil || ok {
		return v, err
	}
	return Value{}, rtErr(pos, "%s() is not a function of a %s", name, recv.kind)
}

func stringMethod(e *env, name, s string, args []Value, pos Pos) (Value, bool, error) {
	switch name {
	case "contains":
		return Bool(strings.Contains(s, args[0].String())), true, nil
	case "containsAll":
		for _, a := range args {
			if !strings.Contains(s, a.String()) {
				return Bool(false), true, nil
			}
		}
		return Bool(true), true, nil
	case "containsAny":
		for _, a := range args {
			if strings.Contains(s, a.String()) {
				return Bool(true), true, nil
			}
		}
		return Bool(false), true, nil
	case "endsWith":
		return Bool(strings.HasSuffix(s, args[0].String())), true, nil
	case "startsWith":
		return Bool(strings.HasPrefix(s, args[0].String())), true, nil
	case "lower":
		return Str(strings.ToLower(s)), true, nil
	case "trim":
		return Str(strings.TrimSpace(s)), true, nil
	case "title":
		return Str(titleCase(s)), true, nil
	case "reverse":
		r := []rune(s)
		slices.Reverse(r)
		return Str(string(r)), true, nil
	case "repeat":
		n := args[0].num
		if args[0].kind != Number || n < 0 || n != math.Trunc(n) || n*float64(len(s)) > 1<<20 {
			return Value{}, true, rtErr(pos, "repeat(): count must be a whole number ≥ 0 and the result at most 1 MiB")
		}
		if err := e.spendText(int(n)*len(s), pos); err != nil {
			return Value{}, true, err
		}
		return Str(strings.Repeat(s, int(n))), true, nil
	case "slice":
		end := 0.0
		if len(args) == 2 {
			end = args[1].num
		}
		return Str(jsSlice(s, args[0].num, end, len(args) == 2)), true, nil
	case "split":
		// Split no further than the work left allows (and the count
		// asks): a long text split by "" would make millions of parts
		// before they could be counted.
		n := int(max(min(maxRowWork-e.work, maxQueryWork-e.rs.work), 0)) + 2
		count := -1
		if len(args) == 2 && args[1].kind == Number && args[1].num >= 0 && args[1].num < float64(n) {
			count = int(args[1].num)
			n = count + 1
		}
		var parts []string
		if args[0].kind == Regexp {
			parts = args[0].ref.(*regexValue).re.Split(s, n)
		} else {
			parts = strings.SplitN(s, args[0].String(), n)
		}
		if count >= 0 && count < len(parts) {
			parts = parts[:count]
		}
		if err := e.spend(len(parts), pos); err != nil {
			return Value{}, true, err
		}
		out := make([]Value, len(parts))
		for i, p := range parts {
			out[i] = Str(p)
		}
		return ListValue(out), true, nil
	case "replace":
		repl := args[1].String()
		if args[0].kind == Regexp {
			rv := args[0].ref.(*regexValue)
			room := min(maxRowWork-e.work, maxQueryWork-e.rs.work) * bytesPerStep
			r, ok := regexReplace(rv.re, s, repl, strings.ContainsRune(rv.flags, 'g'), int(max(room, 0)))
			if err := e.spendText(len(r), pos); err != nil {
				return Value{}, true, err
			}
			if !ok {
				return Value{}, true, e.spendText(int(room)+bytesPerStep, pos)
			}
			return Str(r), true, nil
		}
		old := args[0].String()
		n := strings.Count(s, old) // for "": one more than the runes
		if err := e.spendText(len(s)+n*(len(repl)-len(old)), pos); err != nil {
			return Value{}, true, err
		}
		return Str(strings.ReplaceAll(s, old, repl)), true, nil
	}
	return Value{}, false, nil
}

// titleCase capitalizes the first letter of each word.
func titleCase(s string) string {
	var b strings.Builder
	start := true
	for _, r := range s {
		if unicode.IsSpace(r) {
			start = true
			b.WriteRune(r)
			continue
		}
		if start {
			r = unicode.ToUpper(r)
			start = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// regexReplace is JavaScript's replace with a regular expression: the
// first match, or all with the g flag; $1, $&, $$ in the replacement. ok
// is false when the result would outgrow limit bytes (an empty match
// before every character, each replaced by much text, would be huge).
func regexReplace(re interface {
	FindAllStringSubmatchIndex(string, int) [][]int
}, s, repl string, all bool, limit int) (string, bool) {
	n := 1
	if all {
		n = -1
	}
	ms := re.FindAllStringSubmatchIndex(s, n)
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if b.Len() > limit {
			return "", false
		}
		b.WriteString(s[last:m[0]])
		for i := 0; i < len(repl); i++ {
			if b.Len() > limit {
				return "", false
			}
			c := repl[i]
			if c != '$' || i+1 == len(repl) {
				b.WriteByte(c)
				continue
			}
			nx := repl[i+1]
			switch {
			case nx == '$':
				b.WriteByte('$')
				i++
			case nx == '&':
				b.WriteString(s[m[0]:m[1]])
				i++
			case isDigit(nx):
				g := int(nx - '0')
				j := i + 2
				if j < len(repl) && isDigit(repl[j]) && g*10+int(repl[j]-'0') < len(m)/2 {
					g = g*10 + int(repl[j]-'0')
					j++
				}
				if g == 0 || g >= len(m)/2 {
					b.WriteByte('$')
					continue
				}
				if m[2*g] >= 0 {
					b.WriteString(s[m[2*g]:m[2*g+1]])
				}
				i = j - 1
			default:
				b.WriteByte('$')
			}
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String(), b.Len() <= limit
}

func numberMethod(name string, f float64, args []Value, pos Pos) (Value, bool, error) {
	switch name {
	case "abs":
		return Num(math.Abs(f)), true, nil
	case "ceil":
		return Num(math.Ceil(f)), true, nil
	case "floor":
		return Num(math.Floor(f)), true, nil
	case "round":
		if len(args) == 0 || args[0].IsNull() {
			return Num(jsRound(f)), true, nil
		}
		p := math.Pow(10, math.Trunc(args[0].num))
		return Num(jsRound(f*p) / p), true, nil
	case "toFixed":
		d := args[0].num
		if args[0].kind != Number || d < 0 || d > 100 {
			return Value{}, true, rtErr(pos, "toFixed(): precision must be a number from 0 to 100")
		}
		return Str(strconv.FormatFloat(f, 'f', int(d), 64)), true, nil
	}
	return Value{}, false, nil
}

// jsRound is JavaScript's Math.round: halves go up.
func jsRound(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	return math.Floor(f + 0.5)
}

func dateMethod(e *env, name string, d Value, args []Value, pos Pos) (Value, bool, error) {
	t := d.Time().In(e.rs.loc)
	switch name {
	case "date":
		return DateValue(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, e.rs.loc), false), true, nil
	case "format":
		return Str(daily.Format(t, args[0].String())), true, nil
	case "time":
		return Str(t.Format("15:04:05")), true, nil
	case "relative":
		return Str(relativeTime(t, e.rs.now)), true, nil
	}
	return Value{}, false, nil
}

func listMethod(e *env, name string, l []Value, args []Value, pos Pos) (Value, bool, error) {
	has := func(x Value) bool {
		for _, it := range l {
			if equal(e, it, x) {
				return true
			}
		}
		return false
	}
	switch name {
	case "contains", "containsAll", "containsAny":
		if err := e.spend(len(l)*len(args), pos); err != nil {
			return Value{}, true, err
		}
	}
	switch name {
	case "contains":
		return Bool(has(args[0])), true, nil
	case "containsAll":
		for _, a := range args {
			if !has(a) {
				return Bool(false), true, nil
			}
		}
		return Bool(true), true, nil
	case "containsAny":
		for _, a := range args {
			if has(a) {
				return Bool(true), true, nil
			}
		}
		return Bool(false), true, nil
	case "flat":
		n := 0
		for _, it := range l {
			n += max(len(it.list), 1)
		}
		if err := e.spend(n, pos); err != nil {
			return Value{}, true, err
		}
		out := make([]Value, 0, n)
		for _, it := range l {
			if it.kind == List {
				out = append(out, it.list...)
			} else {
				out = append(out, it)
			}
		}
		fl := ListValue(out)
		if err := e.spendValue(fl, pos); err != nil {
			return Value{}, true, err
		}
		return fl, true, nil
	case "join":
		sep := args[0].String()
		var b strings.Builder
		for i, it := range l {
			piece := it.String()
			if err := e.spendText(len(sep)+len(piece)+bytesPerStep, pos); err != nil {
				return Value{}, true, err
			}
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(piece)
		}
		return Str(b.String()), true, nil
	case "reverse":
		out := slices.Clone(l)
		slices.Reverse(out)
		return ListValue(out), true, nil
	case "slice":
		end := 0.0
		if len(args) == 2 {
			end = args[1].num
		}
		i, j := sliceBounds(len(l), args[0].num, end, len(args) == 2)
		return ListValue(slices.Clone(l[i:j])), true, nil
	case "sort":
		if err := e.spend(len(l)*(bits.Len(uint(len(l)))+1), pos); err != nil {
			return Value{}, true, err
		}
		out := slices.Clone(l)
		slices.SortStableFunc(out, func(a, b Value) int { return sortCompare(e, a, b) })
		return ListValue(out), true, nil
	case "unique":
		var out []Value
		for _, it := range l {
			// Each item is compared with those kept: quadratic.
			if err := e.spend(len(out)+1, pos); err != nil {
				return Value{}, true, err
			}
			dup := false
			for _, o := range out {
				if equal(e, o, it) {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, it)
			}
		}
		return ListValue(out), true, nil
	}
	return Value{}, false, nil
}

func linkMethod(e *env, name string, l Value, args []Value, pos Pos) (Value, bool, error) {
	switch name {
	case "asFile":
		return FileValue(resolveLink(e, l)), true, nil
	case "linksTo":
		f := resolveLink(e, l)
		if f == nil {
			return Bool(false), true, nil
		}
		v, _, err := fileMethod(e, "hasLink", f, args, pos)
		return v, true, err
	}
	return Value{}, false, nil
}

// targetPath is the path a file, link or text argument names.
func targetPath(e *env, v Value, from string) (string, bool) {
	switch v.kind {
	case FileKind:
		return v.File().Path, true
	case Link:
		return linkPath(e, v), true
	case String:
		t, _ := parseWikilink(v.str)
		if p, ok := e.rs.src.Resolve(t, from); ok {
			return p, true
		}
		return t, true
	}
	return "", false
}

func fileMethod(e *env, name string, f *File, args []Value, pos Pos) (Value, bool, error) {
	switch name {
	case "asLink":
		var display Value
		if len(args) == 1 {
			display = args[0]
		}
		return LinkValue(f.Path, "", display), true, nil
	case "hasLink":
		p, ok := targetPath(e, args[0], f.Path)
		if !ok {
			return Bool(false), true, nil
		}
		for _, l := range f.Links {
			if l.Path == p || l.Path == "" && l.Target == p {
				return Bool(true), true, nil
			}
		}
		return Bool(false), true, nil
	case "hasProperty":
		_, ok := f.Props.Get(args[0].String())
		return Bool(ok), true, nil
	case "hasTag":
		for _, a := range args {
			if HasTag(f.Tags, a.String()) {
				return Bool(true), true, nil
			}
		}
		return Bool(false), true, nil
	case "inFolder":
		dir := strings.Trim(args[0].String(), "/")
		if dir == "" {
			return Bool(true), true, nil
		}
		d := path.Dir(f.Path)
		return Bool(d == dir || strings.HasPrefix(d, dir+"/")), true, nil
	}
	return Value{}, false, nil
}

// HasTag reports whether tags hold want ("#" or not) or a tag nested
// below it, without regard to case: file.hasTag's test, for a Source's
// Columns.
func HasTag(tags []string, want string) bool {
	want = strings.TrimPrefix(want, "#")
	for _, t := range tags {
		if len(t) < len(want) {
			continue
		}
		if len(t) == len(want) && strings.EqualFold(t, want) {
			return true
		}
		if len(t) > len(want) && t[len(want)] == '/' && strings.EqualFold(t[:len(want)], want) {
			return true
		}
	}
	return false
}

// fastHasTag compiles file.hasTag("a", "b") with literal tags, a filter
// run on every note, to a direct look at the row's tags.
func (c *compiler) fastHasTag(n *node) evalFn {
	recv := n.kids[0]
	if n.name != "hasTag" || recv.op != opIdent || recv.name != "file" {
		return nil
	}
	var tags []string
	var at []int
	for _, a := range n.kids[1:] {
		if a.op != opLit || a.val.kind != String {
			return nil
		}
		tags = append(tags, a.val.str)
		at = append(at, c.slots.tag(a.val.str))
	}
	return func(e *env) (Value, error) {
		for i, t := range tags {
			if slot := at[i]; slot < len(e.tagged) && e.tagged[slot] != nil {
				if e.tagged[slot][e.row] {
					return Bool(true), nil
				}
			} else if HasTag(e.file.Tags, t) {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
	}
}
