package pattern

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"
)

func TestCheckLength(t *testing.T) {
	for _, c := range []struct {
		s       string
		limit   int
		wantErr string
	}{
		{"", 4, ""},
		{"abcd", 4, ""},
		{"éééé", 4, ""}, // 8 bytes, 4 characters
		{"abcde", 4, "query is 5 characters long; the limit is 4"},
		{strings.Repeat("x", 3_500_000), MaxQuery, "query is 3,500,000 characters long; the limit is 4,096"},
	} {
		err := CheckLength("query", c.s, c.limit)
		if c.wantErr == "" {
			if err != nil {
				t.Errorf("%.20q: %v", c.s, err)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || err.Error() != c.wantErr {
			t.Errorf("%.20q: got %v, want %q", c.s, err, c.wantErr)
		}
	}
}

func TestCheckGlob(t *testing.T) {
	for _, c := range []struct {
		glob    string
		wantErr string // a part of the message
	}{
		{"**/*.md", ""},
		{"{2024,2025}-{01,02,03,04,05,06,07,08,09,10,11,12}*", ""},
		{strings.Repeat("é", MaxGlob), ""},
		{strings.Repeat("x", MaxGlob+1), "pattern is 1,025 characters long; the limit is 1,024: use a shorter glob"},
		{strings.Repeat("{?,??}", 22), "more than 128 patterns once expanded; the limit is 128"},
		{strings.Repeat("{a,b}", 8), "the limit is 128"},
		{strings.Repeat("{a,b}", 7), ""},
		{`\{a,b\}` + strings.Repeat("[{,}]", 20), ""},
	} {
		err := CheckGlob("pattern", c.glob)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%.30q: %v", c.glob, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%.30q: got %v, want %q", c.glob, err, c.wantErr)
		}
	}
}

// TestProgramBoundsCompiledSize holds the estimate above the size Go's
// compiler gives, and near it for the shapes that grow programs.
func TestProgramBoundsCompiledSize(t *testing.T) {
	for _, expr := range []string{
		`a`, `abc`, `(?i)Straße`, `^\s*- \[ \] .*$`, `\bTODO\b|\bFIXME\b`, `(foo|bar|baz)+`,
		`x*`, `x+?`, `(ab)?`, `a{3}`, `a{2,5}`, `a{0,5}`, `a{3,}`, `a{0}`, `(a{10}){10}`, `(a|bc){3,7}`,
		`[a-z]{1000}`, `.{1000}`, `\pL{1000}`, `(?:[[:alpha:]]{1,100}){1,10}`, `((a){2}b){3,}`,
		`(?:)`, `(|a)`, `x{0,1000}y{5,}z`, strings.Repeat("a{1000}", 20), strings.Repeat("[ab]{0,1000}", 6),
	} {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		est := Program(re)
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := len(prog.Inst); est < got || est > 3*got+4 {
			t.Errorf("%s: estimate %d, compiled %d instructions", expr, est, got)
		}
	}
}

func TestCheckProgram(t *testing.T) {
	for _, c := range []struct {
		expr    string
		wantErr string
	}{
		{strings.Repeat("x", MaxQuery), ""},
		{`(?i)` + strings.Repeat("é", MaxQuery), ""},
		{`\w{1000}`, ""},
		{strings.Repeat(`[ab]{0,1000}`, 4), ""},
		{strings.Repeat(`[ab]{0,1000}`, 5), "about 10,007 instructions"},
		{strings.Repeat(`[ab]{0,1000}`, 340), "query is too large once compiled: about 680,342 instructions; the limit is 10,000"},
		{strings.Repeat(`a{1000}`, 11), "; the limit is 10,000 (lower its {n} repeat counts"},
	} {
		re, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%.20s: %v", c.expr, err)
		}
		err = CheckProgram("query", re)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%.30q: %v", c.expr, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%.30q: got %v, want %q", c.expr, err, c.wantErr)
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 4096: "4,096", 3_500_000: "3,500,000", -1234: "-1,234"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestExpansions(t *testing.T) {
	tests := []struct {
		pattern string
		want    int
	}{
		{"*.md", 1},
		{"*.{md,png,jpg}", 3},
		{"{a,b}{c,d,e}", 6},
		{"{a,{b,c}}x", 3},
		{"{a,b{c,d}}", 3},
		{"{a,b{c,d}{e,f}}", 5},
		{`\{a,b\}`, 1},
		{"[{]a,b[}]", 1},
		{"{,a}", 2},
		{strings.Repeat("{?,??}", 6), 64},
		{strings.Repeat("{?,??}", 22), 129}, // stops counting past the limit
	}
	for _, tt := range tests {
		if got := expansions(tt.pattern, MaxGlobAlternatives); got != tt.want {
			t.Errorf("expansions(%q) = %d, want %d", tt.pattern, got, tt.want)
		}
	}
}

// FuzzProgram: for every expression Go parses, the estimate is at least
// the size Go compiles it to, so CheckProgram never lets a larger one by.
func FuzzProgram(f *testing.F) {
	for _, s := range []string{`a`, `(?i)straße`, `(a*)*`, `(|a)+`, `a{2,5}b{3,}c{0}`, `((a|b){3}c?){1,4}`, `[^\n]{100}$`, `\b(?:x*|y+?){2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, flags := range []syntax.Flags{syntax.Perl, syntax.Perl | syntax.FoldCase} {
			re, err := syntax.Parse(expr, flags)
			if err != nil {
				return
			}
			est := Program(re)
			if est > 100_000 {
				return // compiling it would only slow the fuzzer
			}
			prog, err := syntax.Compile(re.Simplify())
			if err != nil {
				return
			}
			if est < len(prog.Inst) {
				t.Fatalf("%q: estimate %d, compiled %d instructions", expr, est, len(prog.Inst))
			}
		}
	})
}
