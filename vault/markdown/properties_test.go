package markdown

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestProperties(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want map[string]any
	}{
		{"none", "# Title\n", nil},
		{"empty", "---\n---\nbody", map[string]any{}},
		{"broken yaml", "---\na: [\n---\n", nil},
		{"not a mapping", "---\n- a\n---\n", nil},
		{"scalars as written", "---\nnotation: 1.10\ncreated: 2025-01-02\nflag: yes\ncount: 007\nempty:\nnull2: ~\nquoted: \"[[A]]\"\n---\n",
			map[string]any{"notation": "1.10", "created": "2025-01-02", "flag": "yes", "count": "007", "empty": nil, "null2": nil, "quoted": "[[A]]"}},
		{"unquoted wikilink is a nested list", "---\nbroader: [[Supervised Learning]]\n---\n",
			map[string]any{"broader": []any{[]any{"Supervised Learning"}}}},
		{"lists and maps", "---\nrelated:\n  - \"[[A]]\"\n  - b\nschema:\n  type: Course\n  about: [x, y]\n---\n",
			map[string]any{"related": []any{"[[A]]", "b"}, "schema": map[string]any{"type": "Course", "about": []any{"x", "y"}}}},
		{"block scalar", "---\ndefinition: >\n  one\n  two\n---\n", map[string]any{"definition": "one two\n"}},
		{"aliases and merge", "---\nbase: &b {type: X, level: 1}\nother:\n  <<: *b\n  level: 2\nsame: *b\n---\n",
			map[string]any{
				"base":  map[string]any{"type": "X", "level": "1"},
				"other": map[string]any{"type": "X", "level": "2"},
				"same":  map[string]any{"type": "X", "level": "1"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse([]byte(tc.src)).Properties()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Properties() = %#v, want %#v", got, tc.want)
			}
		})
	}
}

// A frontmatter whose aliases expand to billions of nodes is read within
// the node bound instead of forever. (Parse never keeps such a tree:
// yaml.v3 refuses excessive aliasing when it decodes Frontmatter. The
// bound is for the tree Properties is given, whatever it is.)
func TestPropertiesAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := 0; i < 8; i++ {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	n := &Note{Frontmatter: map[string]any{}, props: doc.Content[0]}
	props := n.Properties()
	if props == nil {
		t.Fatal("no properties")
	}
	var count func(v any) int
	count = func(v any) int {
		c := 1
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				c += count(x)
			}
		case map[string]any:
			for _, x := range v {
				c += count(x)
			}
		}
		return c
	}
	if c := count(props); c > maxPropertyNodes+1 {
		t.Errorf("%d nodes, over the bound %d", c, maxPropertyNodes)
	}
}

func FuzzProperties(f *testing.F) {
	for _, s := range []string{
		"broader: [[A]]",
		"related: \"[[A]], [[B|b]]\"",
		"a: &a [x]\nb: [*a, *a]\nc: {<<: *a}",
		"schema:\n  about: [x, [y]]\n",
		"x: !!binary aGVsbG8=",
	} {
		f.Add("---\n" + s + "\n---\nbody")
	}
	f.Fuzz(func(t *testing.T, src string) {
		n := Parse([]byte(src))
		props := n.Properties()
		if (props == nil) != (n.Frontmatter == nil) {
			t.Fatalf("Properties nil = %v but Frontmatter nil = %v", props == nil, n.Frontmatter == nil)
		}
		for k := range n.Frontmatter {
			if _, ok := props[k]; !ok && !strings.Contains(src, "<<") {
				t.Fatalf("key %q in Frontmatter, not in Properties", k)
			}
		}
	})
}
