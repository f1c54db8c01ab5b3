package markdown

import (
	"errors"
	"testing"
)

func TestFrontmatterSyntaxError(t *testing.T) {
	tests := []struct {
		name, note string
		want       string // Error(), "" when the frontmatter reads
		hint       string
	}{
		{"two unquoted links", "---\nprefLabel: X\nnarrower: [[Naïve Bayes]], [[Régression]]\n---\nbody",
			"frontmatter that is not valid YAML (line 3: did not find expected key)",
			`quote wikilinks in lists: narrower: ["[[Naïve Bayes]]", "[[Régression]]"]`},
		{"prefixed key, links with spaces between", "---\nprefLabel: X\nskos:broader: [[A]] [[B|b]]\n---\n",
			"frontmatter that is not valid YAML (line 3: did not find expected key)",
			`quote wikilinks in lists: skos:broader: ["[[A]]", "[[B|b]]"]`},
		{"one unquoted link reads", "---\nprefLabel: X\nbroader: [[A]]\n---\n", "", ""},
		{"quoted links read", "---\nprefLabel: X\nnarrower: [\"[[A]]\", \"[[B]]\"]\n---\n", "", ""},
		{"other syntax error keeps yaml's line", "---\na: b\n  c: d: e\n---\n",
			"frontmatter that is not valid YAML (line 3: mapping values are not allowed in this context)",
			`quote wikilinks in lists: narrower: ["[[A]]", "[[B]]"]`},
	}
	for _, tt := range tests {
		n := Parse([]byte(tt.note))
		var se *SyntaxError
		if tt.want == "" {
			if n.FrontmatterErr != nil {
				t.Errorf("%s: %v", tt.name, n.FrontmatterErr)
			}
			continue
		}
		if !errors.As(n.FrontmatterErr, &se) {
			t.Errorf("%s: FrontmatterErr = %v, want a *SyntaxError", tt.name, n.FrontmatterErr)
			continue
		}
		if se.Error() != tt.want || se.Hint() != tt.hint {
			t.Errorf("%s:\n got %s; %s\nwant %s; %s", tt.name, se.Error(), se.Hint(), tt.want, tt.hint)
		}
	}
}
