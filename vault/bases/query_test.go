package bases

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func props(kv ...any) *ObjectValue {
	o := &ObjectValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Keys = append(o.Keys, kv[i].(string))
		o.Vals = append(o.Vals, FromYAML(kv[i+1], "", time.UTC))
	}
	return o
}

func run(t *testing.T, src Source, base, view string, o Options) (*Result, error) {
	t.Helper()
	b, err := Parse([]byte(base))
	if err != nil {
		return nil, err
	}
	q, err := Compile(b, view)
	if err != nil {
		return nil, err
	}
	if o.Now.IsZero() {
		o.Now = testNow
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	return q.Run(context.Background(), src, o)
}

// rowsJSON renders rows as "path: [values]" lines.
func rowsJSON(res *Result) string {
	var b strings.Builder
	for _, r := range res.Rows {
		v, _ := json.Marshal(r.Values)
		b.WriteString(r.Path + ": " + string(v) + "\n")
	}
	return b.String()
}

// helpExampleBase is the example of the Help vault's Bases syntax page.
const helpExampleBase = `filters:
  or:
    - file.hasTag("tag")
    - and:
        - file.hasTag("book")
        - file.hasLink("Textbook")
    - not:
        - file.hasTag("book")
        - file.inFolder("Required Reading")
formulas:
  formatted_price: 'if(price, price.toFixed(2) + " dollars")'
  ppu: "(price / age).toFixed(2)"
properties:
  status:
    displayName: Status
  formula.formatted_price:
    displayName: "Price"
  file.ext:
    displayName: Extension
summaries:
  customAverage: 'values.mean().round(3)'
views:
  - type: table
    name: "My table"
    limit: 10
    groupBy:
      property: note.age
      direction: DESC
    filters:
      and:
        - 'status != "done"'
        - or:
            - "formula.ppu > 5"
            - "price > 2.1"
    order:
      - file.name
      - file.ext
      - note.age
      - formula.ppu
      - formula.formatted_price
    summaries:
      formula.ppu: Average
`

func helpVault() *memSource {
	return newMemSource(
		&File{Path: "Books/A.md", Tags: []string{"book"}, Links: []FileLink{{Target: "Textbook"}}, Props: *props("price", 10, "age", 2, "status", "open")},
		&File{Path: "Books/B.md", Tags: []string{"book"}, Props: *props("price", 30, "age", 3, "status", "open")},
		&File{Path: "Misc/C.md", Tags: []string{"tag"}, Props: *props("price", 1, "age", 1, "status", "done")},
		&File{Path: "Misc/D.md", Props: *props("price", 12, "age", 2, "status", "open")},
		&File{Path: "Required Reading/E.md", Props: *props("price", 1, "age", 1)},
		&File{Path: "Misc/F.md", Tags: []string{"tag"}, Props: *props("price", 2, "age", 3)},
		&File{Path: "Misc/G.md", Tags: []string{"Tag/sub"}, Props: *props("price", 3, "age", 3)},
		&File{Path: "Textbook.md"},
	)
}

// TestHelpExampleBase answers the Bases syntax page's example base; the
// rows are worked out by hand from the page's rules.
func TestHelpExampleBase(t *testing.T) {
	for _, columnar := range []bool{false, true} {
		src := helpVault()
		src.columnar = columnar
		testHelpExampleBase(t, src)
	}
}

func testHelpExampleBase(t *testing.T, src *memSource) {
	res, err := run(t, src, helpExampleBase, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `Misc/G.md: ["G.md","md",3,"1.00","3.00 dollars"]
Books/A.md: ["A.md","md",2,"5.00","10.00 dollars"]
Misc/D.md: ["D.md","md",2,"6.00","12.00 dollars"]
`
	if got := rowsJSON(res); got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
	if res.View != "My table" || res.Type != "table" || res.Total != 3 {
		t.Errorf("view %q type %q total %d", res.View, res.Type, res.Total)
	}
	cols, _ := json.Marshal(res.Columns)
	if want := `[{"id":"file.name","name":"file.name"},{"id":"file.ext","name":"Extension"},{"id":"note.age","name":"note.age"},{"id":"formula.ppu","name":"formula.ppu"},{"id":"formula.formatted_price","name":"Price"}]`; string(cols) != want {
		t.Errorf("columns %s", cols)
	}
	groups, _ := json.Marshal(res.Groups)
	if want := `[{"key":3,"start":0,"count":1},{"key":2,"start":1,"count":2}]`; string(groups) != want {
		t.Errorf("groups %s", groups)
	}
	if res.Errors != nil {
		t.Errorf("errors %+v", res.Errors)
	}
	sums, _ := json.Marshal(res.Summaries)
	if want := `[{"property":"formula.ppu","name":"Average","value":4}]`; string(sums) != want {
		t.Errorf("summaries %s", sums)
	}
}

// TestSummaries computes each default summary of the Bases syntax page
// over the help vault's notes.
func TestSummaries(t *testing.T) {
	base := `views:
  - type: table
    name: S
    order: [price, status]
    summaries:
      price: Average
      status: Unique
      age: Median
      file.mtime: Latest
      file.ctime: Range
      formula.done: Checked
      formula.open: Unchecked
      formula.none: Empty
      file.name: Filled
      formula.p2: Sum
      formula.p3: Min
      formula.p4: Max
      formula.p5: Stddev
      formula.p6: Range
      formula.d: Earliest
      rating: customAverage
formulas:
  done: 'status == "done"'
  open: 'status == "open"'
  none: 'status'
  p2: price
  p3: price
  p4: price
  p5: age
  p6: price
  d: 'date("2025-01-0" + age)'
summaries:
  customAverage: 'values.mean().round(3)'
`
	src := helpVault()
	for i, f := range src.files {
		f.MTime = time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)
		f.CTime = time.Date(2024, 1, 1+2*i, 0, 0, 0, 0, time.UTC)
	}
	res, err := run(t, src, base, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, s := range res.Summaries {
		v, _ := json.Marshal(s.Value)
		b.WriteString(s.Property + " " + s.Name + " " + string(v) + s.Error + "\n")
	}
	// prices 10 30 1 12 1 2 3 (and none); ages 2 3 1 2 1 3 3; statuses
	// open open done open (none) (none) (none) (none).
	want := `price Average 8.428571428571429
status Unique 2
age Median 2
file.ctime Range 1209600000
file.mtime Latest "2025-01-08T00:00:00"
file.name Filled 8
formula.d Earliest "2025-01-01"
formula.done Checked 1
formula.none Empty 4
formula.open Unchecked 5
formula.p2 Sum 59
formula.p3 Min 1
formula.p4 Max 30
formula.p5 Stddev 0.8329931278350429
formula.p6 Range 29
rating customAverage nullsummary "customAverage" is one of the base's own formulas, which this server does not compute
`
	if got := b.String(); got != want {
		t.Errorf("summaries:\n%s\nwant:\n%s", got, want)
	}
	_, err = run(t, src, "views:\n  - name: V\n    summaries:\n      price: Averag\n", "", Options{})
	if err == nil || !strings.Contains(err.Error(), `views["V"].summaries: unknown summary "Averag" for price`) {
		t.Errorf("unknown summary: %v", err)
	}
}

func TestSortLimitPaging(t *testing.T) {
	base := `formulas:
  score: "price * age"
  label: 'formula.score + " pts"'
views:
  - type: table
    name: By score
    order: [formula.label, price]
    sort:
      - property: formula.score
        direction: DESC
      - property: file.name
        direction: ASC
  - type: table
    name: Top two
    limit: 2
    filters: 'price >= 2'
    order: [file.basename]
    sort:
      - property: price
        direction: ASC
`
	res, err := run(t, helpVault(), base, "By score", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `Books/B.md: ["90 pts",30]
Misc/D.md: ["24 pts",12]
Books/A.md: ["20 pts",10]
Misc/G.md: ["9 pts",3]
Misc/F.md: ["6 pts",2]
Misc/C.md: ["1 pts",1]
Required Reading/E.md: ["1 pts",1]
Textbook.md: [" pts",null]
`
	if got := rowsJSON(res); got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
	res, err = run(t, helpVault(), base, "By score", Options{Offset: 2, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsJSON(res); got != "Books/A.md: [\"20 pts\",10]\nMisc/G.md: [\"9 pts\",3]\n" || res.Total != 8 {
		t.Errorf("page: total %d\n%s", res.Total, got)
	}
	res, err = run(t, helpVault(), base, "Top two", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsJSON(res); got != "Misc/F.md: [\"F\"]\nMisc/G.md: [\"G\"]\n" || res.Total != 2 {
		t.Errorf("limit: total %d\n%s", res.Total, got)
	}
}

func TestBaseErrors(t *testing.T) {
	tests := []struct{ base, view, want string }{
		{"views: [", "", "base: not valid YAML"},
		{"- a\n- b", "", "base: line 1: the base must be a YAML mapping"},
		{"views:\n  - name: A\n", "B", `views: no view "B"; the base's views are "A"`},
		{"formulas:\n  a: formula.b + 1\n  b: formula.a\n", "", `formula "a": circular reference: a → b → a`},
		{"formulas:\n  a: formula.a\n", "", `formula "a": circular reference: a → a`},
		{"formulas:\n  a: price.toFixd(2)\n", "", `formula "a" at 1:7: unknown function toFixd()`},
		{"filters:\n  and:\n    - file.hasTag(\"x\")\n    - nosuch(1)\n", "", `filters.and[1] at 1:1: unknown function nosuch()`},
		{"views:\n  - name: V\n    filters:\n      or:\n        - 'file.bogus == 1'\n", "", `views["V"].filters.or[0] at 1:6: unknown file property "file.bogus"`},
		{"views:\n  - name: V\n    order: [file.nope]\n", "", `views["V"].order: unknown file property "file.nope"`},
		{"views:\n  - name: V\n    order: [formula.nope]\n", "", `views["V"].order: unknown formula "formula.nope"`},
		{"filters:\n  xor: []\n", "", `filters: line 2: unknown filter "xor" (and, or, not)`},
		{"views:\n  - name: V\n    sort:\n      - property: a\n        direction: UP\n", "", `views["V"].sort[0].direction: line 5: "UP" is not ASC or DESC`},
	}
	for _, tt := range tests {
		_, err := run(t, helpVault(), tt.base, tt.view, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %s", tt.base, err, tt.want)
		}
	}
}

// TestRowErrors: an expression failing on a note is counted and named
// with the note, not an empty answer.
func TestRowErrors(t *testing.T) {
	base := "formulas:\n  bad: 'status - 1'\nviews:\n  - name: V\n    filters: 'file.inFolder(\"Books\")'\n    order: [formula.bad]\n"
	res, err := run(t, helpVault(), base, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors == nil || res.Errors.Count != 2 || !strings.Contains(res.Errors.First[0], `formula.bad at 1:8 on Books/A.md: in formula "bad": cannot apply - to a string and a number`) {
		t.Fatalf("errors %+v", res.Errors)
	}
	base = "filters: 'number(status) > 1'\n"
	res, err = run(t, helpVault(), base, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || res.Errors == nil || !strings.Contains(res.Errors.First[0], `filters at 1:1 on Books/A.md: number(): "open" is not a number`) {
		t.Fatalf("rows %d errors %+v", len(res.Rows), res.Errors)
	}
	// A mistyped duration is an error on every file, not a filter that
	// quietly matches nothing.
	res, err = run(t, helpVault(), "filters: 'file.mtime < today() + \"7 dys\"'\n", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || res.Errors == nil || !strings.Contains(res.Errors.First[0], `"7 dys" is not a duration`) {
		t.Fatalf("rows %d errors %+v", len(res.Rows), res.Errors)
	}
}

// TestThis: this is the base file, or the note embedding it.
func TestThis(t *testing.T) {
	src := helpVault()
	base := "filters: 'file.hasLink(this.file)'\nviews:\n  - name: V\n    order: [file.name, formula.here]\nformulas:\n  here: this.file.name\n"
	res, err := run(t, src, base, "", Options{This: &File{Path: "Bases/Links.base"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 {
		t.Errorf("base file as this: %s", rowsJSON(res))
	}
	tb, _ := src.File("Textbook.md")
	res, err = run(t, src, base, "", Options{This: tb})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsJSON(res); got != "Books/A.md: [\"A.md\",\"Textbook.md\"]\n" {
		t.Errorf("embedded in Textbook.md:\n%s", got)
	}
	res, err = run(t, src, "filters: 'this.file.folder == file.folder'\n", "", Options{This: &File{Path: "Misc/x.base"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 4 {
		t.Errorf("this.file.folder: %d rows\n%s", res.Total, rowsJSON(res))
	}
}

func TestGroupByStrings(t *testing.T) {
	base := "views:\n  - name: V\n    groupBy:\n      property: status\n      direction: ASC\n    order: [file.name]\n"
	res, err := run(t, helpVault(), base, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(res.Groups)
	if want := `[{"key":"done","start":0,"count":1},{"key":"open","start":1,"count":3},{"key":null,"start":4,"count":4}]`; string(g) != want {
		t.Errorf("groups %s", g)
	}
	if *res.Rows[1].Group != 1 || res.Rows[1].Path != "Books/A.md" {
		t.Errorf("row 1 %+v", res.Rows[1])
	}
}
