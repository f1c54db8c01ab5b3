package search

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestExtractPrefilter(t *testing.T) {
	tests := []struct {
		pat       string
		fold      bool
		must, any []string
	}{
		{`hello`, false, []string{"hello"}, nil},
		{`hello\s+world`, false, []string{"hello", "world"}, nil},
		{`foo|bar`, false, nil, []string{"bar", "foo"}},
		{`colou?r`, false, nil, []string{"color", "colour"}},
		{`(foo|bar)baz`, false, nil, []string{"barbaz", "foobaz"}},
		{`\bTODO\b:?`, false, []string{"TODO"}, nil},
		{`x+yz`, false, []string{"x", "yz"}, nil},
		{`a.*b`, false, []string{"a", "b"}, nil},
		{`.*`, false, nil, nil},
		{`\d{4}-\d{2}`, false, []string{"-"}, nil},
		{`[Hh]ello`, false, nil, []string{"Hello", "hello"}},
		{`HeLLo`, true, []string{"hello"}, nil},
		{`(?i)hello`, false, nil, nil},
		{`(?i)123`, false, []string{"123"}, nil},
		{`Straße`, true, []string{"straße"}, nil},
		{`(abc)+`, false, []string{"abc"}, nil},
		{`(ab|cd)*`, false, nil, nil},
		{`a\x{FFFD}b`, false, []string{"a", "b"}, nil},
	}
	for _, tt := range tests {
		flags := syntax.Perl
		if tt.fold {
			flags |= syntax.FoldCase
		}
		re, err := syntax.Parse(tt.pat, flags)
		if err != nil {
			t.Fatal(err)
		}
		p := extractPrefilter(re, tt.fold)
		slices.Sort(p.must)
		if !slices.Equal(p.must, tt.must) || !slices.Equal(p.any, tt.any) {
			t.Errorf("%q (fold %v): must %q any %q, want must %q any %q", tt.pat, tt.fold, p.must, p.any, tt.must, tt.any)
		}
	}
}

// FuzzPrefilter checks the prefilter's promise: every match of the
// regexp contains every required literal, or one of the alternatives
// (in a case-insensitive search: its folded form does).
func FuzzPrefilter(f *testing.F) {
	for _, s := range []string{`hello\s+world`, `foo|bar`, `colou?r`, `(?i)ß`, `\bk`, `[Kk]elvin`, `a{2,3}b`, `(a|)b`, `x*?y`, `\x{FFFD}`} {
		f.Add(s, "hello world foo colour kelvin \u212Aelvin aab b y \xff", false)
		f.Add(s, "HELLO  WORLD BAR COLOR STRASSE ẞ", true)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, fold bool) {
		flags := syntax.Perl
		prefix := ""
		if fold {
			flags |= syntax.FoldCase
			prefix = "(?i)"
		}
		tree, err := syntax.Parse(pattern, flags)
		if err != nil {
			return
		}
		re, err := regexp.Compile(prefix + pattern)
		if err != nil {
			return
		}
		p := extractPrefilter(tree, fold)
		for _, loc := range re.FindAllStringIndex(text, 20) {
			m := text[loc[0]:loc[1]]
			if fold {
				m = foldString(m)
			}
			for _, lit := range p.must {
				if !strings.Contains(m, lit) {
					t.Fatalf("%q matches %q, which lacks required literal %q", pattern, text[loc[0]:loc[1]], lit)
				}
			}
			if len(p.any) > 0 && !slices.ContainsFunc(p.any, func(lit string) bool { return strings.Contains(m, lit) }) {
				t.Fatalf("%q matches %q, which holds none of %q", pattern, text[loc[0]:loc[1]], p.any)
			}
		}
	})
}
