// Package query selects notes from the live index by a small JSON filter
// (properties, tags, folder, links, modification time), sorts and pages
// them. It reads only what the index keeps of each note, so a query over
// a large vault takes milliseconds.
//
// A filter is a JSON object whose conditions must all hold:
//
//	{"tags": ["project"], "properties": {"status": "done"}, "folder": "Projects",
//	 "links_to": "Home", "modified_after": "2026-01-01"}
//
// "any", "all" and "not" combine filters, and a property condition can
// be a comparison ({"priority": {"gte": 2}}). docs/notes.md's query_notes
// section documents the language with examples.
package query

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"vaultmcp/internal/when"
	"vaultmcp/vault"
	"vaultmcp/vault/index"
	"vaultmcp/vault/pattern"
)

// Error is a filter or sort the client got wrong, phrased for it.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func bad(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Filter is a parsed filter. The zero Filter matches every note.
type Filter struct {
	tags      []string // folded; each must be on the note (or a tag nested below it)
	props     []propCond
	folders   []string
	paths     []string // doublestar globs
	linksTo   []string // names as given, resolved by prepare
	linksFrom []string
	after     *time.Time
	before    *time.Time
	any, all  []*Filter
	not       *Filter
}

// keys lists the filter's keys, for error messages.
var keys = []string{"tags", "properties", "folder", "path", "links_to", "links_from", "modified_after", "modified_before", "any", "all", "not"}

// Parse reads a filter from its decoded JSON: an object (nil or an empty
// object match every note). A JSON text of an object is accepted too.
// Relative times ("7d", "yesterday") count back from now.
func Parse(raw any) (*Filter, error) {
	return ParseAt(raw, time.Now())
}

// ParseAt is Parse with relative times counted back from now.
func ParseAt(raw any, now time.Time) (*Filter, error) {
	return parse(raw, "filter", 0, now)
}

const maxNesting = 16

func parse(raw any, where string, depth int, now time.Time) (*Filter, error) {
	if depth > maxNesting {
		return nil, bad("%s: filters nested deeper than %d levels", where, maxNesting)
	}
	if s, ok := raw.(string); ok {
		if strings.TrimSpace(s) == "" {
			return &Filter{}, nil
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, bad("%s is not a JSON object: %v", where, err)
		}
		raw = v
	}
	if raw == nil {
		return &Filter{}, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, bad("%s must be a JSON object like {\"tags\": [\"project\"]}, not %s", where, describe(raw))
	}
	f := &Filter{}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := obj[k]
		at := where + "." + k
		var err error
		switch k {
		case "tags", "tag":
			var tags []string
			if tags, err = stringList(v, at); err == nil {
				for _, t := range tags {
					t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#"))
					if t == "" {
						return nil, bad("%s: a tag is empty", at)
					}
					f.tags = append(f.tags, index.TagKey(t))
				}
			}
		case "properties":
			err = f.parseProperties(v, at)
		case "folder":
			var dirs []string
			if dirs, err = stringList(v, at); err == nil {
				for _, d := range dirs {
					f.folders = append(f.folders, vault.NFC(strings.Trim(strings.TrimSpace(d), "/")))
				}
			}
		case "path":
			var globs []string
			if globs, err = stringList(v, at); err == nil {
				for _, g := range globs {
					g = strings.TrimPrefix(strings.TrimSpace(g), "/")
					if err := pattern.CheckGlob(at, g); err != nil {
						return nil, bad("%s", err)
					}
					if !doublestar.ValidatePattern(g) {
						return nil, bad("%s: %q is not a valid glob pattern", at, g)
					}
					f.paths = append(f.paths, vault.NFC(g))
				}
			}
		case "links_to":
			f.linksTo, err = stringList(v, at)
		case "links_from":
			f.linksFrom, err = stringList(v, at)
		case "modified_after":
			f.after, err = parseTime(v, at, now)
		case "modified_before":
			f.before, err = parseTime(v, at, now)
		case "any", "all":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, bad("%s must be a non-empty list of filters", at)
			}
			for i, item := range list {
				sub, err := parse(item, fmt.Sprintf("%s[%d]", at, i), depth+1, now)
				if err != nil {
					return nil, err
				}
				if k == "any" {
					f.any = append(f.any, sub)
				} else {
					f.all = append(f.all, sub)
				}
			}
		case "not":
			f.not, err = parse(v, at, depth+1, now)
		default:
			return nil, bad("%s: unknown filter key %q; use %s", where, k, strings.Join(keys, ", "))
		}
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

func describe(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "text"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}

// stringList reads a string or a list of strings.
func stringList(v any, at string) ([]string, error) {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, bad("%s is empty", at)
		}
		return []string{x}, nil
	case []any:
		if len(x) == 0 {
			return nil, bad("%s is an empty list", at)
		}
		out := make([]string, len(x))
		for i, item := range x {
			s, ok := item.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return nil, bad("%s[%d] must be non-empty text", at, i)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, bad("%s must be text or a list of text, not %s", at, describe(v))
}

// parseTime reads a time as every tool does (package when): a date is
// its first moment, a time without a zone is in now's zone.
func parseTime(v any, at string, now time.Time) (*time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return nil, bad("%s must be text naming a time: %s", at, when.Help)
	}
	t, err := when.Parse(s, now)
	if err != nil {
		return nil, bad("%s: %v", at, err)
	}
	return &t, nil
}

// propCond is one property's conditions, all of which must hold.
type propCond struct {
	key   string // as given; compared without regard to case
	tests []propTest
}

type propTest struct {
	op  string
	val []operand // one, or several for "in"
	yes bool      // for exists and empty
}

// operand is a value a property is compared with.
type operand struct {
	text  string // folded
	num   float64
	isNum bool
}

// ops lists the comparison operators, for error messages.
var ops = []string{"eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "exists", "empty"}

func (f *Filter) parseProperties(v any, at string) error {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		return bad("%s must be an object of property conditions, like {\"status\": \"done\"}", at)
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, key := range names {
		c := propCond{key: key}
		where := at + "." + key
		switch x := obj[key].(type) {
		case nil:
			c.tests = append(c.tests, propTest{op: "empty", yes: true})
		case []any:
			t, err := inTest(x, where)
			if err != nil {
				return err
			}
			c.tests = append(c.tests, t)
		case map[string]any:
			if len(x) == 0 {
				return bad("%s is an empty object; use {\"exists\": true} to ask for the property", where)
			}
			opNames := make([]string, 0, len(x))
			for op := range x {
				opNames = append(opNames, op)
			}
			sort.Strings(opNames)
			for _, op := range opNames {
				arg := x[op]
				w := where + "." + op
				switch op {
				case "exists", "empty":
					b, ok := arg.(bool)
					if !ok {
						return bad("%s must be true or false", w)
					}
					c.tests = append(c.tests, propTest{op: op, yes: b})
				case "in":
					list, ok := arg.([]any)
					if !ok {
						return bad("%s must be a list of values", w)
					}
					t, err := inTest(list, w)
					if err != nil {
						return err
					}
					c.tests = append(c.tests, t)
				case "eq", "ne", "gt", "gte", "lt", "lte", "contains":
					o, err := toOperand(arg, w)
					if err != nil {
						return err
					}
					c.tests = append(c.tests, propTest{op: op, val: []operand{o}})
				default:
					return bad("%s: unknown operator %q; use %s", where, op, strings.Join(ops, ", "))
				}
			}
		default:
			o, err := toOperand(x, where)
			if err != nil {
				return err
			}
			c.tests = append(c.tests, propTest{op: "eq", val: []operand{o}})
		}
		f.props = append(f.props, c)
	}
	return nil
}

func inTest(list []any, at string) (propTest, error) {
	if len(list) == 0 {
		return propTest{}, bad("%s is an empty list", at)
	}
	t := propTest{op: "in"}
	for i, item := range list {
		o, err := toOperand(item, fmt.Sprintf("%s[%d]", at, i))
		if err != nil {
			return t, err
		}
		t.val = append(t.val, o)
	}
	return t, nil
}

func toOperand(v any, at string) (operand, error) {
	switch x := v.(type) {
	case string:
		return operand{text: strings.ToLower(unlink(x))}, nil
	case bool:
		return operand{text: strconv.FormatBool(x)}, nil
	case float64:
		return operand{text: strconv.FormatFloat(x, 'g', -1, 64), num: x, isNum: true}, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return operand{}, bad("%s: %s is not a number", at, x)
		}
		return operand{text: x.String(), num: f, isNum: true}, nil
	case int:
		return operand{text: strconv.Itoa(x), num: float64(x), isNum: true}, nil
	}
	return operand{}, bad("%s must be text, a number or a boolean, not %s", at, describe(v))
}

// unlink reads "[[Note|alias]]" as "Note", so a property holding a link
// matches the note's name.
func unlink(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
		if i := strings.IndexByte(s, '|'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
	}
	return s
}

// matches reports whether the property values vals (nil when the note
// lacks the property) pass the test.
func (t propTest) matches(vals []string, present bool) bool {
	switch t.op {
	case "exists":
		return present == t.yes
	case "empty":
		empty := true
		for _, v := range vals {
			if strings.TrimSpace(v) != "" {
				empty = false
			}
		}
		return empty == t.yes
	case "ne":
		for _, v := range vals {
			if equal(v, t.val[0]) {
				return false
			}
		}
		return true
	}
	for _, v := range vals {
		for _, o := range t.val {
			if compare(t.op, v, o) {
				return true
			}
		}
	}
	return false
}

func equal(v string, o operand) bool {
	if o.isNum {
		f, ok := number(v)
		return ok && f == o.num
	}
	return strings.EqualFold(unlink(v), o.text) || strings.EqualFold(v, o.text)
}

func compare(op, v string, o operand) bool {
	switch op {
	case "eq", "in":
		return equal(v, o)
	case "contains":
		return containsFold(v, o.text)
	}
	var c int
	if o.isNum {
		f, ok := number(v)
		if !ok {
			return false
		}
		c = cmpFloat(f, o.num)
	} else {
		c = cmpFold(v, o.text)
	}
	switch op {
	case "gt":
		return c > 0
	case "gte":
		return c >= 0
	case "lt":
		return c < 0
	case "lte":
		return c <= 0
	}
	return false
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

// containsFold reports whether sub (lowercase) occurs in s, ignoring
// case; ASCII text is compared without allocating.
func containsFold(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if cmpFold(s[i:i+n], sub) == 0 {
			return true
		}
	}
	return false
}

// resolved holds what a filter names, looked up once per query: the
// notes of its link conditions, the ids of its tags and property keys.
type resolved struct {
	linksTo   map[*Filter][]string          // per filter: target paths
	linksFrom map[*Filter][]map[string]bool // per filter: sets of paths linked from
	tags      map[*Filter][]uint32
	keys      map[*propCond]uint32
}

// match reports whether the note passes every condition. The cheap
// tests on the row itself go first; property values, which live
// elsewhere in memory, are read only for notes that pass those.
func (f *Filter) match(rw *row, r *resolved) bool {
	if f.after != nil && rw.mod < f.after.UnixNano() {
		return false
	}
	if f.before != nil && rw.mod >= f.before.UnixNano() {
		return false
	}
	for _, id := range r.tags[f] {
		if !containsID(rw.tags, id) {
			return false
		}
	}
	if len(f.folders) > 0 || len(f.paths) > 0 {
		// Folders and globs were put in NFC when parsed; the path is too
		// here, so a name stored decomposed (NFD) on disk still matches.
		p := vault.NFC(rw.path)
		if len(f.folders) > 0 && !slices.ContainsFunc(f.folders, func(d string) bool { return inFolder(p, d) }) {
			return false
		}
		if len(f.paths) > 0 && !slices.ContainsFunc(f.paths, func(g string) bool { ok, _ := doublestar.Match(g, p); return ok }) {
			return false
		}
	}
	for _, set := range r.linksFrom[f] {
		if !set[rw.path] {
			return false
		}
	}
	for _, target := range r.linksTo[f] {
		if !slices.Contains(rw.links, target) {
			return false
		}
	}
	for i := range f.props {
		c := &f.props[i]
		key := r.keys[c]
		var vals []string
		present := false
		for j := range rw.props {
			if rw.props[j].key == key {
				vals, present = rw.props[j].vals, true
				break
			}
		}
		for _, t := range c.tests {
			if !t.matches(vals, present) {
				return false
			}
		}
	}
	for _, sub := range f.all {
		if !sub.match(rw, r) {
			return false
		}
	}
	if len(f.any) > 0 && !slices.ContainsFunc(f.any, func(sub *Filter) bool { return sub.match(rw, r) }) {
		return false
	}
	if f.not != nil && f.not.match(rw, r) {
		return false
	}
	return true
}

// inFolder reports whether rel lies in dir or below it ("" is the whole
// vault), comparing without regard to case.
func inFolder(rel, dir string) bool {
	if dir == "" {
		return true
	}
	return len(rel) > len(dir) && rel[len(dir)] == '/' && strings.EqualFold(rel[:len(dir)], dir)
}

// walk calls fn for f and each filter nested in it.
func (f *Filter) walk(fn func(*Filter)) {
	fn(f)
	for _, s := range f.any {
		s.walk(fn)
	}
	for _, s := range f.all {
		s.walk(fn)
	}
	if f.not != nil {
		f.not.walk(fn)
	}
}
