package bases

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestWorkBudget: expressions that build huge values from short text
// (shared lists, text grown by replace, quadratic unique) fail on the
// file with an error naming the limit, instead of taking the server's
// memory or CPU; ordinary ones still work.
func TestWorkBudget(t *testing.T) {
	// nested is a formula chain where each level lists the one below ten
	// times: ten million numbers after six levels, from a few bytes.
	nested := "  n0: '[1,1,1,1,1,1,1,1,1,1]'\n"
	for i := 1; i <= 6; i++ {
		ref := fmt.Sprintf("formula.n%d", i-1)
		nested += fmt.Sprintf("  n%d: '[%s]'\n", i, strings.TrimSuffix(strings.Repeat(ref+",", 10), ","))
	}
	tests := []struct {
		name, formulas, col string
		fails               bool
	}{
		{"shared lists nested", nested, "formula.n6.length", true},
		{"small nesting", nested, "formula.n3.length", false},
		{"split lists joined", `  x: '"x".repeat(600000).split("") + "y".repeat(600000).split("")'` + "\n", "formula.x.length", true},
		{"text replace grows", `  x: '"x".repeat(100).replace("", "y".repeat(200000))'` + "\n", "formula.x.length", true},
		{"regexp replace grows", `  x: '"x".repeat(100).replace(/(?:)/g, "y".repeat(200000))'` + "\n", "formula.x.length", true},
		{"join grows", `  x: '"x".repeat(1000).split("").map("y".repeat(20000)).join("")'` + "\n", "formula.x.length", true},
		{"unique is quadratic", `  x: '"x".repeat(3000).split("").map(index).unique()'` + "\n", "formula.x.length", true},
		{"map of map flat", `  x: '"x".repeat(1100).split("").map("x".repeat(1100).split("")).flat()'` + "\n", "formula.x.length", true},
		{"ordinary list work", `  x: '"a,b,c".split(",").map(value.title()).unique().sort().join("-")'` + "\n", "formula.x", false},
	}
	src := newMemSource(&File{Path: "A.md"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := "formulas:\n" + tt.formulas + "  out: '" + tt.col + "'\nviews:\n  - type: table\n    name: v\n    order: [formula.out]\n"
			res, err := run(t, src, base, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			failed := res.Errors != nil && strings.Contains(res.Errors.First[0], "steps of work on one file")
			if failed != tt.fails {
				t.Fatalf("failed on the file: %v, want %v; rows %s, errors %+v", failed, tt.fails, rowsJSON(res), res.Errors)
			}
		})
	}
}

// TestWorkBudgetQuery: work that each file may do but all files
// together exceed fails the whole query, naming the limit.
func TestWorkBudgetQuery(t *testing.T) {
	var files []*File
	for i := range 80 {
		files = append(files, &File{Path: fmt.Sprintf("N%02d.md", i)})
	}
	base := "formulas:\n  x: '\"x\".repeat(1000000).split(\"\").length'\nviews:\n  - type: table\n    name: v\n    order: [formula.x]\n"
	_, err := run(t, newMemSource(files...), base, "", Options{})
	var be *Error
	if err == nil || !strings.Contains(err.Error(), "steps of work") || !errors.As(err, &be) {
		t.Fatalf("err = %v, want the query's work limit as an *Error", err)
	}
}

// TestSplitStopsEarly: split() makes no more parts than the work left
// allows, and a count still cuts the list as JavaScript does.
func TestSplitStopsEarly(t *testing.T) {
	src := newMemSource(&File{Path: "A.md"})
	var before, after runtimeMemStats
	before.read()
	_, err := evalJSON(t, src, nil, `("x".repeat(1000000) + "x".repeat(1000000) + "x".repeat(1000000) + "x".repeat(1000000)).split("").length`)
	after.read()
	if err == nil || !strings.Contains(err.Error(), "steps of work") {
		t.Fatalf("err = %v, want the work limit", err)
	}
	// 4 million parts would be 64 MB of string headers alone.
	if grew := after.total - before.total; grew > 40<<20 {
		t.Errorf("split allocated %d MB before failing", grew>>20)
	}
	for expr, want := range map[string]string{
		`"a,b,c".split(",", 2)`:  `["a","b"]`,
		`"a,b,c".split(",", 0)`:  `[]`,
		`"a,b,c".split(",", 9)`:  `["a","b","c"]`,
		`"a1b2c".split(/[0-9]/)`: `["a","b","c"]`,
		`"abc".split("")`:        `["a","b","c"]`,
	} {
		if got, err := evalJSON(t, src, nil, expr); err != nil || got != want {
			t.Errorf("%s = %s, %v; want %s", expr, got, err, want)
		}
	}
}

type runtimeMemStats struct{ total uint64 }

func (m *runtimeMemStats) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
