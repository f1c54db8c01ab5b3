package bases

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of values. Null is the zero Value.
const (
	Null Kind = iota
	String
	Number
	Boolean
	Date
	Duration
	List
	Object
	Link
	FileKind
	Regexp
	HTML
	Image
	Icon
)

var kindNames = [...]string{"null", "string", "number", "boolean", "date", "duration", "list", "object", "link", "file", "regexp", "html", "image", "icon"}

// String returns the kind's name as isType() spells it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one value of the expression language. It is passed by value;
// the variable-size kinds point at shared, never-modified data, so copying
// a Value never copies a list or an object.
type Value struct {
	kind Kind
	// timed: a Date with a time of day (not only a calendar day).
	timed bool
	// months: a Duration's calendar months (years are 12 of them), kept
	// apart from its milliseconds because a month has no fixed length.
	months int32
	// num: a Number; a Boolean (1 or 0); a Date's Unix milliseconds; a
	// Duration's milliseconds.
	num float64
	// str: a String, a Link's target as written, an HTML/Image/Icon's text.
	str  string
	list []Value
	// ref: *ObjectValue, *File, *regexValue or *linkData.
	ref any
}

// ObjectValue is an object's members in the order written.
type ObjectValue struct {
	Keys []string
	Vals []Value
}

// Get returns the member named k; ok is false when there is none.
func (o *ObjectValue) Get(k string) (Value, bool) {
	if o == nil {
		return Value{}, false
	}
	for i, key := range o.Keys {
		if key == k {
			return o.Vals[i], true
		}
	}
	return Value{}, false
}

// ptr returns the member named k in place, nil when there is none.
func (o *ObjectValue) ptr(k string) *Value {
	if o == nil {
		return nil
	}
	for i := range o.Keys {
		if o.Keys[i] == k {
			return &o.Vals[i]
		}
	}
	return nil
}

// linkData is what a Link holds besides its target.
type linkData struct {
	display Value
	// from is the path the link is written in, which resolves a bare name.
	from string
}

type regexValue struct {
	re     *regexp.Regexp
	source string
	flags  string
}

// Constructors.

// NullValue is the null value.
func NullValue() Value { return Value{} }

// Str makes a String.
func Str(s string) Value { return Value{kind: String, str: s} }

// Num makes a Number.
func Num(f float64) Value { return Value{kind: Number, num: f} }

// Bool makes a Boolean.
func Bool(b bool) Value {
	if b {
		return Value{kind: Boolean, num: 1}
	}
	return Value{kind: Boolean}
}

// DateValue makes a Date from t; timed says whether the time of day
// counts (a date property without a time has none).
func DateValue(t time.Time, timed bool) Value {
	return Value{kind: Date, num: float64(t.UnixMilli()), timed: timed}
}

// DurationValue makes a Duration of months calendar months plus ms
// milliseconds.
func DurationValue(months int32, ms float64) Value {
	return Value{kind: Duration, months: months, num: ms}
}

// ListValue makes a List; the slice is kept, not copied.
func ListValue(items []Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{kind: List, list: items}
}

// ObjectOf makes an Object; o is kept, not copied.
func ObjectOf(o *ObjectValue) Value {
	if o == nil {
		o = &ObjectValue{}
	}
	return Value{kind: Object, ref: o}
}

// LinkValue makes a Link to target (a path or a name, as a wikilink has
// it), written in the file from, shown as display (Null: the target).
func LinkValue(target, from string, display Value) Value {
	return Value{kind: Link, str: target, ref: &linkData{display: display, from: from}}
}

// FileValue makes a File.
func FileValue(f *File) Value {
	if f == nil {
		return Value{}
	}
	return Value{kind: FileKind, ref: f}
}

// Kind returns v's kind.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == Null }

// Float returns a Number's value (0 for other kinds).
func (v Value) Float() float64 { return v.num }

// Text returns a String's text (or a Link's target).
func (v Value) Text() string { return v.str }

// Items returns a List's items; they must not be modified.
func (v Value) Items() []Value { return v.list }

// Object returns an Object's members (nil for other kinds).
func (v Value) Object() *ObjectValue {
	o, _ := v.ref.(*ObjectValue)
	return o
}

// File returns a File value's file (nil for other kinds).
func (v Value) File() *File {
	f, _ := v.ref.(*File)
	return f
}

// Time returns a Date's instant.
func (v Value) Time() time.Time { return time.UnixMilli(int64(v.num)) }

func (v Value) link() *linkData {
	l, _ := v.ref.(*linkData)
	if l == nil {
		return &linkData{}
	}
	return l
}

// Truthy is the value coerced to a boolean, as JavaScript does, except
// that an empty list or object is false (Obsidian shows them as empty).
func (v Value) Truthy() bool {
	switch v.kind {
	case Null:
		return false
	case String, HTML, Image, Icon:
		return v.str != ""
	case Number:
		return v.num != 0 && !math.IsNaN(v.num)
	case Boolean:
		return v.num != 0
	case Duration:
		return v.num != 0 || v.months != 0
	case List:
		return len(v.list) > 0
	case Object:
		return len(v.Object().Keys) > 0
	}
	return true
}

// isEmpty is isEmpty(): absent, or with nothing in it.
func (v Value) isEmpty() bool {
	switch v.kind {
	case Null:
		return true
	case String:
		return v.str == ""
	case List:
		return len(v.list) == 0
	case Object:
		return len(v.Object().Keys) == 0
	}
	return false
}

// FormatNumber renders a number as JavaScript's String(n) does.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// JavaScript writes 1e+21 and 1e-7, not 1e+21 and 1e-07.
		if i := strings.IndexAny(s, "+-"); i > 0 && s[i-1] == 'e' {
			exp := strings.TrimLeft(s[i+1:], "0")
			s = s[:i+1] + exp
		}
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// String renders v as toString() does.
func (v Value) String() string {
	switch v.kind {
	case Null:
		return ""
	case String, HTML, Image, Icon:
		return v.str
	case Number:
		return FormatNumber(v.num)
	case Boolean:
		if v.num != 0 {
			return "true"
		}
		return "false"
	case Date:
		t := v.Time().In(time.Local)
		if v.timed {
			return t.Format("2006-01-02 15:04:05")
		}
		return t.Format(time.DateOnly)
	case Duration:
		return formatDuration(v)
	case List:
		var b strings.Builder
		for i, it := range v.list {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(it.String())
		}
		return b.String()
	case Object:
		b, _ := json.Marshal(v)
		return string(b)
	case Link:
		l := v.link()
		if !l.display.IsNull() {
			return l.display.String()
		}
		return v.str
	case FileKind:
		return v.File().Path
	case Regexp:
		r := v.ref.(*regexValue)
		return "/" + r.source + "/" + r.flags
	}
	return ""
}

// formatDuration writes a duration in the units the syntax accepts.
func formatDuration(v Value) string {
	var parts []string
	if m := v.months; m != 0 {
		if m%12 == 0 {
			parts = append(parts, strconv.Itoa(int(m/12))+"y")
		} else {
			parts = append(parts, strconv.Itoa(int(m))+"M")
		}
	}
	ms := v.num
	neg := ms < 0
	if neg {
		ms = -ms
	}
	units := []struct {
		n    float64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}}
	for _, u := range units {
		if ms >= u.n {
			k := math.Floor(ms / u.n)
			ms -= k * u.n
			s := FormatNumber(k) + u.name
			if neg {
				s = "-" + s
			}
			parts = append(parts, s)
		}
	}
	if ms > 0 {
		s := FormatNumber(ms) + "ms"
		if neg {
			s = "-" + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "0s"
	}
	return strings.Join(parts, " ")
}

// MarshalJSON writes v as JSON: strings, numbers, booleans and null as
// themselves; a date as "2006-01-02" or "2006-01-02T15:04:05" in local
// time; a duration as its milliseconds; a link as "[[target|display]]"; a
// file as its path; an object with its members in order; html, image and
// icon as {"html": …} and the like.
func (v Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	v.appendJSON(&b)
	return b.Bytes(), nil
}

func (v Value) appendJSON(b *bytes.Buffer) {
	str := func(s string) {
		q, _ := json.Marshal(s)
		b.Write(q)
	}
	switch v.kind {
	case Null:
		b.WriteString("null")
	case String:
		str(v.str)
	case Number:
		if math.IsNaN(v.num) || math.IsInf(v.num, 0) {
			b.WriteString("null")
			return
		}
		b.WriteString(FormatNumber(v.num))
	case Boolean:
		b.WriteString(v.String())
	case Date:
		// Past JavaScript's dates (±8.64e15 ms), as from date(0/0) or
		// a date plus 1e20: JavaScript's Invalid Date, which has no day.
		if math.IsNaN(v.num) || math.Abs(v.num) > 8.64e15 {
			b.WriteString("null")
			return
		}
		t := v.Time().In(time.Local)
		if v.timed {
			str(t.Format("2006-01-02T15:04:05"))
		} else {
			str(t.Format(time.DateOnly))
		}
	case Duration:
		// A duration divided by zero: JSON has no Infinity.
		if ms := durationMillis(v); math.IsNaN(ms) || math.IsInf(ms, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(FormatNumber(ms))
		}
	case List:
		b.WriteByte('[')
		for i, it := range v.list {
			if i > 0 {
				b.WriteByte(',')
			}
			it.appendJSON(b)
		}
		b.WriteByte(']')
	case Object:
		o := v.Object()
		b.WriteByte('{')
		for i, k := range o.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			str(k)
			b.WriteByte(':')
			o.Vals[i].appendJSON(b)
		}
		b.WriteByte('}')
	case Link:
		l := v.link()
		if l.display.IsNull() {
			str("[[" + v.str + "]]")
		} else {
			str("[[" + v.str + "|" + l.display.String() + "]]")
		}
	case FileKind:
		str(v.File().Path)
	case Regexp:
		str(v.String())
	case HTML, Image, Icon:
		b.WriteByte('{')
		str(v.kind.String())
		b.WriteByte(':')
		str(v.str)
		b.WriteByte('}')
	}
}

// durationMillis is a duration in milliseconds, a month counted as the
// average Gregorian month.
func durationMillis(v Value) float64 {
	return v.num + float64(v.months)*(365.2425/12)*86400000
}

// jsLength is a string's length as JavaScript counts it: UTF-16 units.
func jsLength(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// jsSlice is JavaScript's String.prototype.slice, in UTF-16 units.
func jsSlice(s string, start, end float64, hasEnd bool) string {
	u := utf16.Encode([]rune(s))
	i, j := sliceBounds(len(u), start, end, hasEnd)
	return string(utf16.Decode(u[i:j]))
}

// sliceBounds resolves JavaScript slice arguments against a length n.
func sliceBounds(n int, start, end float64, hasEnd bool) (int, int) {
	clamp := func(f float64) int {
		if math.IsNaN(f) {
			return 0
		}
		f = math.Trunc(f)
		if f < 0 {
			f += float64(n)
		}
		return int(math.Max(0, math.Min(f, float64(n))))
	}
	i := clamp(start)
	j := n
	if hasEnd {
		j = clamp(end)
	}
	if j < i {
		j = i
	}
	return i, j
}
