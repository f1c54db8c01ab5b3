package markdown

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sameValue compares decoded YAML values as reflect.DeepEqual does, but
// holds NaN equal to NaN and tells 0 from -0.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// checkFastYAML reads text on the fast path and with yaml.v3 and fails
// when the fast path answers differently; it reports whether the fast
// path answered at all.
func checkFastYAML(t *testing.T, text string) bool {
	t.Helper()
	fast := &parser{note: &Note{}}
	if !fast.fastYAML(text, 2) {
		if fast.note.Frontmatter != nil || fast.note.Tags != nil || fast.note.Aliases != nil {
			t.Fatalf("fast path gave up on %q but left %+v", text, fast.note)
		}
		return false
	}
	slow := &parser{note: &Note{}}
	slow.slowYAML(text, 2)
	f, s := fast.note, slow.note
	if s.FrontmatterErr != nil {
		t.Fatalf("fast path read %q, which yaml.v3 refuses (%v), as %#v", text, s.FrontmatterErr, f.Frontmatter)
	}
	if !sameValue(f.Frontmatter, s.Frontmatter) {
		t.Fatalf("%q: fast path %#v, yaml.v3 %#v", text, f.Frontmatter, s.Frontmatter)
	}
	if !reflect.DeepEqual(f.Tags, s.Tags) {
		t.Fatalf("%q: fast path tags %+v, yaml.v3 %+v", text, f.Tags, s.Tags)
	}
	if !reflect.DeepEqual(f.Aliases, s.Aliases) {
		t.Fatalf("%q: fast path aliases %q, yaml.v3 %q", text, f.Aliases, s.Aliases)
	}
	if fp, sp := f.Properties(), s.Properties(); !sameValue(fp, sp) {
		t.Fatalf("%q: fast path properties %#v, yaml.v3 %#v", text, fp, sp)
	}
	return true
}

// fastYAMLCases are frontmatter texts with whether the fast path must
// read them (the shapes vaults use) or leave them to yaml.v3.
var fastYAMLCases = []struct {
	text string
	fast bool
}{
	{"", true},
	{"# only a comment\n\n", true},
	{"title: \"Réunion d’équipe 00012\"\naliases:\n  - café 12\ntags:\n  - projet/actif\n  - 日本語\ncreated: 2025-01-13\nupdated: 2025-01-13T12:12:00Z\nrating: 2\ndraft: true\nup: \"[[Note 00007]]\"\nsource:\n  author: Note\n  url: https://example.org/20\n", true},
	{"title: Plain words, with a comma\ntags: [project, idea]\n", true},
	{"tags: [ a , 'b c', \"d\" ]  # trailing comment\n", true},
	{"tags: []\naliases: [ ]\n", true},
	{"tags:\n- a\n- b\nnext: 1\n", true},
	{"Tags: one two, three\nALIAS: x, y ,, z\n", true},
	{"aliases: [One, Two]\nalias:\n  - 'it''s'\n  - \"say \\\"hi\\\"\"\n", true},
	{"tags: null\naliases: ~\nempty:\nquoted: 'null'\n", true},
	{"n: 007\nhex: 0x1F\nbin: 0b101\noct: 0o17\nneg: -12\npos: +3\nunder: 1_000\nbig: 18446744073709551615\nhuge: 99999999999999999999\n", true},
	{"f: 1.10\ng: .5\nh: 1e3\ni: -.inf\nj: .NaN\nk: 08\nl: 1.2.3\n", true},
	{"d: 2025-1-2\ne: 2025-01-02 10:30:00\nf: 2025-13-45\ng: 2025-01-02T10:30:00+02:00\nt: 10:30\n", true},
	{"yes: no\non: off\ny: n\nTrue: FALSE\n", false}, // "True" as a key reads as a bool
	{"a: yes\nb: on\nc: y\nd: True\ne: FALSE\n", true},
	{"url: http://example.org/a#b\nc: C# notes\nd: a #comment\n", true},
	{"nested:\n  a: 1\n  b:\n    c: [x, y]\n    d:\n      - e\n  f: g\nafter: 2\n", true},
	{"skos:broader: \"[[A]]\"\nschema:\n  type: DefinedTerm\n  about: [x, y]\n", true},
	{"a:\r\n  - b\r\nc: d\r\n", true},
	{"a: b\n\n# comment\n   # indented comment\nc: d   \n", true},
	{"a:b: c\na[b]: c\na]: b\nk: v] x\n..: x\né: x\n日本: y\na<<: b\n", true},
	{"a:\n\n  - b\nc:\n  # c\n  - d\ne:  \n  f: g\n", true},
	{"m:   b   c  \nq: ''\nr: \"\"\ns: '#x'\nt: 0.\nu: 1__0\nv: _1\nw: 0x_1F\nx: 2025-01-02t10:00:00Z\n", true},
	{"tags: \"#a #b,c\"\naliases: [x, null, ~, 'null', \"\"]\ntag: [a, null, ~, 'null']\n", true},
	{"k: 'a' # c\nl: \"b\"   # d\n", true},
	{"k: \"a\"#c\n", false},
	{"k: \"a\" \"b\"\n", false},
	{"aliases: [x, [y]]\n", true},
	{"a:\n  b: 1\n  b: 2\n", false},
	{"...: x\n", false},
	{"broader: [[A]]\nrelated: [[[B|b]], [C, \"d\"], [], e#f]\n", true},
	{"narrower: [[A]], [[B]]\n", false},
	{"a: &x 1\nb: *x\n", false},
	{"a: !!str 1\n", false},
	{"a: |\n  text\n", false},
	{"a: >\n  text\n", false},
	{"a: {b: c}\n", false},
	{"a: b\n  continued\n", false},
	{"a: \"two\n  lines\"\n", false},
	{"a: 1\na: 2\n", false},
	{"1: one\n", false},
	{"\"quoted key\": v\n", false},
	{"a:\tb\n", false},
	{"a: b: c\n", false},
	{"- a\n- b\n", false},
	{"  a: 1\n", false},
	{"a:\n  - b\n  c: d\n", false},
	{"a:\n  b: 1\n c: 2\n", false},
	{"a: [b, c,]\n", false},
	{"a: [b\n", false},
	{"a: \"esc \\u00e9\"\n", false},
	{"<<: {a: 1}\n", false},
	{"a: \u0085\n", false},
	{"a: -\n", false},
	{"a:\n  -\n", false},
	{"a:\n- - b\n", false},
	{"a:\n- b: c\n", false},
}

func TestFastYAML(t *testing.T) {
	for _, tc := range fastYAMLCases {
		if got := checkFastYAML(t, tc.text); got != tc.fast {
			t.Errorf("%q: fast path %v, want %v", tc.text, got, tc.fast)
		}
	}
}

// Fragments of frontmatter: keys, values that look like numbers, dates,
// booleans and nulls but may not be, quoting, comments, lists and nested
// mappings, at varied indentation. Random texts built from them reach the
// fast path's corners more quickly than byte-level fuzzing.
var (
	yamlKeys   = []string{"title", "tags", "Tag", "aliases", "alias", "a", "b", "skos:broader", "url", "y", "on", "x y", "a#b", "1", "null", "True", "-a", "?a", "é", "..."}
	yamlValues = []string{"", "v", "two words", "Réunion", "日本語", "1", "007", "08", "-3", "+4", "1_0", "0x1F", "0b11", "-0b11", "0o7", "1.5",
		"1.10", ".5", "1e3", "1e", ".inf", "-.Inf", ".nan", "2025-01-02", "2025-1-2", "2025-01-02T10:00:00Z", "2025-01-02 10:00:00",
		"2025-13-01", "10:30", "true", "False", "yes", "~", "null", "NULL", "Null", "nUll", "[]", "[a, b]", "[ a ,b ]", "[a,]", "[a, [b]]",
		"[[A]]", "[[A]], [[B]]", "\"[[A]]\"", "'q'", "'it''s'", "\"d\"", "\"a\\\"b\"", "\"a\\nb\"", "\"\\x41\"", "\"unterminated", "'",
		"a #c", "a#c", "# c", "a: b", "a:", "a:b", "-", "- x", "-x", "&a x", "*a", "!t x", "|", ">", "{a: b}", "%x", "@x", "`x`", "a, b",
		"#tag", "[#a]", "[\"a\", 'b']", "[a b, c]", "http://x/y", "C#", "\u00a0x", "x\u00a0", "[a]x", "\"a\" b", "'a' #c", "[a] #c"}
	yamlIndents = []string{"", "", "", " ", "  ", "  ", "    "}
)

func randomYAML(r *rand.Rand) string {
	var sb strings.Builder
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	end := func() {
		if r.IntN(10) == 0 {
			sb.WriteString(pick([]string{"  # c", " ", "#c"}))
		}
		sb.WriteString(pick([]string{"\n", "\n", "\n", "\r\n", "\n\n"}))
	}
	// Mostly well-formed: a key with a value, a key with a list below it,
	// or with a mapping below it; now and then a line out of place.
	var entries func(indent string, depth int)
	entries = func(indent string, depth int) {
		for range 1 + r.IntN(4) {
			sb.WriteString(indent)
			if r.IntN(12) == 0 {
				sb.WriteString(pick(yamlIndents))
			}
			switch k := r.IntN(10); {
			case k < 6:
				sb.WriteString(pick(yamlKeys) + ": " + pick(yamlValues))
				end()
			case k < 8:
				sb.WriteString(pick(yamlKeys) + ":")
				end()
				dash := indent + pick([]string{"", "  ", " "})
				for range r.IntN(4) {
					sb.WriteString(dash + "- " + pick(yamlValues))
					end()
				}
			case k < 9 && depth < 3:
				sb.WriteString(pick(yamlKeys) + ":")
				end()
				entries(indent+pick([]string{"  ", "  ", " ", "    "}), depth+1)
			default:
				sb.WriteString(pick([]string{"# comment", "- x", "", "key"}))
				end()
			}
		}
	}
	entries("", 0)
	return sb.String()
}

// TestFastYAMLRandom holds the fast path to yaml.v3 on random frontmatter
// (fixed seed: reproducible), and checks that it reads a fair share of it
// rather than passing by giving up.
func TestFastYAMLRandom(t *testing.T) {
	n := 50000
	if testing.Short() {
		n = 5000
	}
	r := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for range n {
		if checkFastYAML(t, randomYAML(r)) {
			fast++
		}
	}
	t.Logf("fast path read %d of %d", fast, n)
	if fast < n/10 {
		t.Errorf("fast path read only %d of %d random texts", fast, n)
	}
}

func FuzzFastYAML(f *testing.F) {
	for _, tc := range fastYAMLCases {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFastYAML(t, text)
	})
}

// parseTimestamp skips the formats whose date-time separator a value
// lacks: it must answer as trying every format in turn does.
func TestParseTimestampSkipsOnlyImpossibleFormats(t *testing.T) {
	tryAll := func(s string) (time.Time, bool) {
		if len(s) < 5 || s[4] != '-' || strings.IndexFunc(s[:4], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return time.Time{}, false
		}
		for _, format := range timestampFormats {
			if t, err := time.Parse(format, s); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	values := []string{
		"2026-01-05", "2026-1-5", "2026-01-05T10:20:30Z", "2026-01-05t10:20:30Z", "2026-01-05 10:20:30",
		"2026-01-05 10:20:30.5", "2026-01-05T10:20:30.123456789+02:00", "2026-01-05T10:20:30", "2026-01-05 t",
		"2026-01-05T", "2026-01-05 ", "2026-13-05", "2026-01-32", "2026-", "2026-01", "12026-01-05", "2026-01-05x",
		"2026-01-05\t10:20:30", "2026-01-05  10:20:30", "2026-01-05T10:20:30 ", "2026-1-2 3:4:5", "2026-01-05T10:20:30z",
	}
	r := rand.New(rand.NewPCG(7, 8))
	const alphabet = "0123456789-:Tt .Z+z"
	for range 20000 {
		b := []byte("2026-")
		for range r.IntN(22) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		values = append(values, string(b))
	}
	for _, v := range values {
		got, gotOK := parseTimestamp(v)
		want, wantOK := tryAll(v)
		if gotOK != wantOK || !got.Equal(want) || got.Location().String() != want.Location().String() {
			t.Errorf("parseTimestamp(%q) = %v, %v; every format in turn: %v, %v", v, got, gotOK, want, wantOK)
		}
	}
}
