package edit

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestProperties(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // JSON of [{key, value, type}]
	}{
		{"none", "# x\n", `[]`},
		{"empty block", emptyFrontmatter, `[]`},
		{"only comments", "---\n# nothing yet\n---\n", `[]`},
		{"comments", commentedFrontmatter,
			`[{"k":"status","v":"draft","t":"text"},{"k":"tags","v":["one"],"t":"list"},{"k":"aliases","v":["x","y"],"t":"list"}]`},
		{"nested", nestedFrontmatter,
			`[{"k":"matrix","v":[[1,2],["a","b"]],"t":"list"},{"k":"people","v":[{"name":"Ann","roles":["dev","ops"]},{"name":"Bo"}],"t":"list"},{"k":"title","v":"Quoted: yes","t":"text"}]`},
		{"types", "---\nn: 3\nf: 2.5\nb: true\nd: 2026-01-05\ndt: 2026-01-05T10:30\nq: \"2026-01-05\"\ne:\nl: []\no: {a: 1}\n---\n",
			`[{"k":"n","v":3,"t":"number"},{"k":"f","v":2.5,"t":"number"},{"k":"b","v":true,"t":"checkbox"},{"k":"d","v":"2026-01-05","t":"date"},{"k":"dt","v":"2026-01-05T10:30","t":"datetime"},{"k":"q","v":"2026-01-05","t":"text"},{"k":"e","v":null,"t":"empty"},{"k":"l","v":[],"t":"list"},{"k":"o","v":{"a":1},"t":"object"}]`},
		{"key order kept", "---\nz: 1\na: 2\nm: 3\n---\n", `[{"k":"z","v":1,"t":"number"},{"k":"a","v":2,"t":"number"},{"k":"m","v":3,"t":"number"}]`},
		{"crlf and bom", "\xef\xbb\xbf---\r\na: x\r\n---\r\nbody", `[{"k":"a","v":"x","t":"text"}]`},
		{"anchors", "---\nbase: &b [1, 2]\ncopy: *b\n---\n", `[{"k":"base","v":[1,2],"t":"list"},{"k":"copy","v":[1,2],"t":"list"}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			props, err := Properties([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			type kv struct {
				K string `json:"k"`
				V any    `json:"v"`
				T string `json:"t"`
			}
			out := []kv{}
			for _, p := range props {
				out = append(out, kv{p.Key, p.Value, p.Type})
			}
			got, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"---\na: [\n---\n", "---\n- a\n- b\n---\n"} {
		if _, err := Properties([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestSetProperties(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		set    map[string]any
		remove []string
		want   string
		change Change
	}{
		{name: "no frontmatter yet", src: "# Title\n", set: map[string]any{"status": "draft", "tags": []any{"a", "b/c"}},
			want: "---\nstatus: draft\ntags:\n  - a\n  - b/c\n---\n# Title\n", change: Change{Added: []string{"status", "tags"}}},
		{name: "no frontmatter, crlf, bom", src: "\xef\xbb\xbf# T\r\n", set: map[string]any{"a": 1.0},
			want: "\xef\xbb\xbf---\r\na: 1\r\n---\r\n# T\r\n", change: Change{Added: []string{"a"}}},
		{name: "empty frontmatter", src: emptyFrontmatter, set: map[string]any{"done": true},
			want: "---\ndone: true\n---\n# Title\nbody\n", change: Change{Added: []string{"done"}}},
		{name: "typed values as Obsidian writes them", src: "---\n---\n", set: map[string]any{
			"text": "plain words", "link": "[[Home]]", "colon": "a: b", "hash": "#tag", "num": 2.5, "int": 7.0, "yes": false,
			"date": "2026-01-05", "datetime": "2026-01-05T10:30:00", "numeric text": "123", "empty": nil, "none": []any{},
			"multi": "line one\nline two"},
			want: "---\ncolon: \"a: b\"\ndate: 2026-01-05\ndatetime: 2026-01-05T10:30:00\nempty:\nhash: \"#tag\"\nint: 7\nlink: \"[[Home]]\"\n" +
				"multi: |-\n  line one\n  line two\nnone: []\nnum: 2.5\nnumeric text: \"123\"\ntext: plain words\nyes: false\n---\n",
			change: Change{Added: []string{"colon", "date", "datetime", "empty", "hash", "int", "link", "multi", "none", "num", "numeric text", "text", "yes"}}},
		{name: "set in place, others untouched", src: commentedFrontmatter, set: map[string]any{"status": "done", "new": "x"}, remove: []string{"aliases"},
			want:   "---\n# the note's status\nstatus: done # until reviewed\ntags:\n  - one\n  # - two (later)\nnew: x\n---\nbody\n",
			change: Change{Set: []string{"status"}, Added: []string{"new"}, Removed: []string{"aliases"}}},
		{name: "same value keeps formatting", src: commentedFrontmatter, set: map[string]any{"aliases": []any{"x", "y"}, "status": "draft"},
			want: commentedFrontmatter, change: Change{Kept: []string{"aliases", "status"}}},
		{name: "remove a missing key", src: commentedFrontmatter, remove: []string{"nope"}, want: commentedFrontmatter},
		{name: "nested lists untouched", src: nestedFrontmatter, set: map[string]any{"matrix": []any{[]any{1.0, 2.0}, []any{"a", "b"}}, "added": "y"},
			want:   strings.Replace(nestedFrontmatter, "\n---\n# Body", "\nadded: y\n---\n# Body", 1),
			change: Change{Added: []string{"added"}, Kept: []string{"matrix"}}},
		{name: "replace a nested value", src: nestedFrontmatter, set: map[string]any{"matrix": []any{[]any{"z"}}},
			want:   strings.Replace(nestedFrontmatter, "matrix:\n  - [1, 2]\n  - - a\n    - b\n", "matrix:\n  - - z\n", 1),
			change: Change{Set: []string{"matrix"}}},
		{name: "indented mapping", src: "---\n  a: 1\n  b: 2\n---\n", set: map[string]any{"c": 3.0, "a": 0.0},
			want: "---\n  a: 0\n  b: 2\n  c: 3\n---\n", change: Change{Set: []string{"a"}, Added: []string{"c"}}},
		{name: "block scalar value with a # line", src: "---\nnote: |\n  keep\n  # this is text\nnext: 1\n---\n", set: map[string]any{"note": "new"},
			want: "---\nnote: new\nnext: 1\n---\n", change: Change{Set: []string{"note"}}},
		{name: "dotted end line", src: "---\na: 1\n...\nbody\n", set: map[string]any{"b": 2.0},
			want: "---\na: 1\nb: 2\n...\nbody\n", change: Change{Added: []string{"b"}}},
		{name: "frontmatter ending the file", src: "---\na: 1\n---", set: map[string]any{"a": 2.0},
			want: "---\na: 2\n---", change: Change{Set: []string{"a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ch, err := SetProperties([]byte(tc.src), sorted(tc.set), tc.remove)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s\n(%q)", got, tc.want, got)
			}
			for _, pair := range [][2][]string{{ch.Set, tc.change.Set}, {ch.Added, tc.change.Added}, {ch.Removed, tc.change.Removed}, {ch.Kept, tc.change.Kept}} {
				if !slices.Equal(pair[0], pair[1]) {
					t.Errorf("change %+v, want %+v", ch, tc.change)
					break
				}
			}
			// What was set reads back as set.
			props, err := Properties(got)
			if err != nil {
				t.Fatalf("result unreadable: %v", err)
			}
			for k, v := range tc.set {
				i := slices.IndexFunc(props, func(p Property) bool { return p.Key == k })
				if i < 0 || !sameValue(props[i].Value, normalizeValue(v)) {
					t.Errorf("%s reads back as %+v", k, props)
				}
			}
		})
	}
}

func TestSetPropertiesRefusals(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		set    map[string]any
		remove []string
	}{
		{"set and remove", "# x", map[string]any{"a": 1.0}, []string{"a"}},
		{"empty key", "# x", map[string]any{" ": 1.0}, nil},
		{"key with newline", "# x", map[string]any{"a\nb": 1.0}, nil},
		{"duplicate key", "---\na: 1\na: 2\n---\n", map[string]any{"a": 3.0}, nil},
		{"bad yaml", "---\na: [\n---\n", map[string]any{"b": 1.0}, nil},
		{"not a mapping", "---\n- x\n---\n", map[string]any{"b": 1.0}, nil},
		{"alias left dangling", "---\nbase: &b 1\ncopy: *b\n---\n", nil, []string{"base"}},
		{"unsupported value", "# x", map[string]any{"a": struct{}{}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := SetProperties([]byte(tc.src), sorted(tc.set), tc.remove); !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestAliasBomb: a few lines of YAML aliases that stand for billions of
// values are refused, quickly, instead of expanded.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\nbody\n")
	if _, err := Properties([]byte(b.String())); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if _, _, err := SetProperties([]byte(b.String()), Object{{"x", 1.0}}, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("set: err = %v, want ErrInvalid", err)
	}
}

func TestFlowFrontmatterIsReadNotEdited(t *testing.T) {
	src := "---\n{a: 1, b: [x]}\n---\n"
	props, err := Properties([]byte(src))
	if err != nil || len(props) != 2 {
		t.Fatalf("props %+v, %v", props, err)
	}
	if _, _, err := SetProperties([]byte(src), Object{{"b", "y"}}, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}

// sorted turns a map into an Object with its keys in alphabetical order.
func sorted(m map[string]any) Object {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	obj := make(Object, len(keys))
	for i, k := range keys {
		obj[i] = Member{k, m[k]}
	}
	return obj
}

func TestSetPropertiesKeepsGivenOrder(t *testing.T) {
	got, _, err := SetProperties([]byte("---\nb: 1\n---\n"), Object{{"z", 1.0}, {"b", 2.0}, {"a", 3.0}}, nil)
	if err != nil || string(got) != "---\nb: 2\nz: 1\na: 3\n---\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, _, err := SetProperties([]byte(""), Object{{"a", 1.0}, {"a", 2.0}}, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate key: %v", err)
	}
}
