package bases

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// testNow is the moment now() gives in tests.
var testNow = time.Date(2025, 5, 27, 14, 30, 15, 250e6, time.UTC)

func evalJSON(t *testing.T, src Source, f *File, expr string) (string, error) {
	t.Helper()
	v, err := Eval(context.Background(), expr, src, f, Options{Now: testNow, Location: time.UTC})
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(v)
	return string(b), nil
}

// TestHelpExamples evaluates the examples of the Help vault's Functions,
// Bases syntax and Formulas pages; the expected values are what those
// pages say they return.
func TestHelpExamples(t *testing.T) {
	book := &File{Path: "Books/Dune.md", Size: 1234,
		MTime: time.Date(2025, 5, 24, 10, 0, 0, 0, time.UTC), CTime: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		Props: ObjectValue{Keys: []string{"price", "age", "status", "tags", "author", "start_date", "due_date", "tasks", "first_name", "last_name", "impact", "urgency", "effort", "quantity", "isModified"},
			Vals: []Value{Num(12.5), Num(5), Str("open"), ListValue([]Value{Str("book")}), LinkValue("Herbert", "Books/Dune.md", Value{}),
				DateValue(time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC), false), DateValue(time.Date(2025, 5, 20, 0, 0, 0, 0, time.UTC), false),
				ListValue([]Value{Str("a"), Str("b"), Str("c")}), Str("Frank"), Str("Herbert"), Num(3), Num(4), Num(2), Num(5), Bool(true)}},
		Tags:  []string{"book", "scifi/classic"},
		Links: []FileLink{{Target: "Herbert"}, {Target: "Textbook"}},
	}
	herbert := &File{Path: "People/Herbert.md", Links: []FileLink{{Target: "Dune"}}}
	textbook := &File{Path: "Textbook.md"}
	src := newMemSource(book, herbert, textbook)
	tests := []struct{ expr, want string }{
		// Global
		{`escapeHTML("<b>a & b</b>")`, `"\u0026lt;b\u0026gt;a \u0026amp; b\u0026lt;/b\u0026gt;"`},
		{`date("2025-01-01 12:00:00")`, `"2025-01-01T12:00:00"`},
		{`date("2025-01-01")`, `"2025-01-01"`},
		{`duration("1d")`, `86400000`},
		{`now() + (duration('1d') * 2)`, `"2025-05-29T14:30:15"`},
		{`duration('5h') * 2`, `36000000`},
		{`duration("1s") < 600`, `false`},
		{`duration("1s") > 999`, `true`},
		{`1500 > duration("1s")`, `true`},
		{`file("Textbook.md")`, `"Textbook.md"`},
		{`file(link("[[Textbook]]"))`, `"Textbook.md"`},
		{`html("<i>x</i>")`, `{"html":"\u003ci\u003ex\u003c/i\u003e"}`},
		{`if(isModified, "Modified", "Unmodified")`, `"Modified"`},
		{`if(false, "x")`, `null`},
		{`image("https://obsidian.md/images/obsidian-logo-gradient.svg")`, `{"image":"https://obsidian.md/images/obsidian-logo-gradient.svg"}`},
		{`icon("arrow-right")`, `{"icon":"arrow-right"}`},
		{`link("filename")`, `"[[filename]]"`},
		{`link("filename", "display")`, `"[[filename|display]]"`},
		{`link("https://obsidian.md")`, `"[[https://obsidian.md]]"`},
		{`list("value")`, `["value"]`},
		{`list([1,2])`, `[1,2]`},
		{`max(1, 5, 3)`, `5`},
		{`min(4, 2, 8)`, `2`},
		{`now()`, `"2025-05-27T14:30:15"`},
		{`number("3.4")`, `3.4`},
		{`number(true)`, `1`},
		{`number(date("1970-01-02"))`, `86400000`},
		{`today()`, `"2025-05-27"`},
		{`random() < 1`, `true`},
		// Any
		{`1.isTruthy()`, `true`},
		{`"example".isType("string")`, `true`},
		{`true.isType("boolean")`, `true`},
		{`123.toString()`, `"123"`},
		// Date
		{`date("2025-05-27 13:14:15").year`, `2025`},
		{`date("2025-05-27 13:14:15").month`, `5`},
		{`date("2025-05-27 13:14:15").day`, `27`},
		{`date("2025-05-27 13:14:15").hour`, `13`},
		{`date("2025-05-27 13:14:15").minute`, `14`},
		{`date("2025-05-27 13:14:15").second`, `15`},
		{`now().millisecond`, `250`},
		{`now().date().format("YYYY-MM-DD HH:mm:ss")`, `"2025-05-27 00:00:00"`},
		{`date("2025-05-27").format("YYYY-MM-DD")`, `"2025-05-27"`},
		// Moment's k runs 1-24 (24 at midnight), and w counts US weeks,
		// as daily note names do.
		{`date("2025-05-27 00:30").format("k kk")`, `"24 24"`},
		{`date("2025-05-27 13:14:15").format("k")`, `"13"`},
		{`date("2025-01-04").format("w gggg")`, `"1 2025"`},
		{`date("2024-12-29").format("ww gggg")`, `"01 2025"`},
		{`now().time()`, `"14:30:15"`},
		{`file.mtime.relative()`, `"3 days ago"`},
		{`date("2025-06-27").relative()`, `"in a month"`},
		{`now().isEmpty()`, `false`},
		// String
		{`"hello".length`, `5`},
		{`"hello".contains("ell")`, `true`},
		{`"hello".containsAll("h", "e")`, `true`},
		{`"hello".containsAny("x", "y", "e")`, `true`},
		{`"hello".endsWith("lo")`, `true`},
		{`"Hello world".isEmpty()`, `false`},
		{`"".isEmpty()`, `true`},
		{`missing.isEmpty()`, `true`},
		{`"HeLLo".lower()`, `"hello"`},
		{`"a:b:c:d".replace(/:/, "-")`, `"a-b:c:d"`},
		{`"a:b:c:d".replace(/:/g, "-")`, `"a-b-c-d"`},
		{`"a:b:c:d".replace(":", "-")`, `"a-b-c-d"`},
		{`"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, `"Smith, John"`},
		{`"123".repeat(2)`, `"123123"`},
		{`"hello".reverse()`, `"olleh"`},
		{`"hello".slice(1, 4)`, `"ell"`},
		{`"hello".slice(1)`, `"ello"`},
		{`"a,b,c,d".split(",", 3)`, `["a","b","c"]`},
		{`"a,b,c,d".split(/,/, 3)`, `["a","b","c"]`},
		{`"hello".startsWith("he")`, `true`},
		{`"hello world".title()`, `"Hello World"`},
		{`"  hi  ".trim()`, `"hi"`},
		// Number
		{`(-5).abs()`, `5`},
		{`(2.1).ceil()`, `3`},
		{`(2.9).floor()`, `2`},
		{`5.isEmpty()`, `false`},
		{`(2.5).round()`, `3`},
		{`(2.3333).round(2)`, `2.33`},
		{`(3.14159).toFixed(2)`, `"3.14"`},
		// List
		{`[1,2,3].length`, `3`},
		{`[1,2,3].contains(2)`, `true`},
		{`[1,2,3].containsAll(2,3)`, `true`},
		{`[1,2,3].containsAny(3,4)`, `true`},
		{`[1,2,3,4].filter(value > 2)`, `[3,4]`},
		{`[1,2,3,4].filter(index < 2)`, `[1,2]`},
		{`[1,[2,3]].flat()`, `[1,2,3]`},
		{`[1,2,3].isEmpty()`, `false`},
		{`[1,2,3].join(",")`, `"1,2,3"`},
		{`[1,2,3,4].map(value + 1)`, `[2,3,4,5]`},
		{`[1,2,3].reduce(acc + value, 0)`, `6`},
		{`[3, "x", 7, 1].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, `7`},
		{`["x"].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, `null`},
		{`[1,2,3].reverse()`, `[3,2,1]`},
		{`[1,2,3,4].slice(1,3)`, `[2,3]`},
		{`[1,2,3,4].slice(2)`, `[3,4]`},
		{`[3, 1, 2].sort()`, `[1,2,3]`},
		{`["c", "a", "b"].sort()`, `["a","b","c"]`},
		{`[1,2,2,3].unique()`, `[1,2,3]`},
		{`[[1,2],[3]].map(value.map(value * 10))`, `[[10,20],[30]]`},
		// Link
		{`link("[[Textbook]]").asFile()`, `"Textbook.md"`},
		{`link("Herbert").linksTo(file)`, `true`},
		{`link("Textbook").linksTo(file)`, `false`},
		// File
		{`file.name`, `"Dune.md"`},
		{`file.basename`, `"Dune"`},
		{`file.path`, `"Books/Dune.md"`},
		{`file.folder`, `"Books"`},
		{`file.ext`, `"md"`},
		{`file.size`, `1234`},
		{`file.properties.status`, `"open"`},
		{`file.tags`, `["#book","#scifi/classic"]`},
		{`file.links`, `["[[People/Herbert.md]]","[[Textbook.md]]"]`},
		{`file.backlinks`, `["[[People/Herbert.md]]"]`},
		{`file.ctime`, `"2024-01-02T03:04:05"`},
		{`file.mtime`, `"2025-05-24T10:00:00"`},
		{`file.asLink()`, `"[[Books/Dune.md]]"`},
		{`file.asLink("Dune")`, `"[[Books/Dune.md|Dune]]"`},
		{`file.hasLink("Textbook")`, `true`},
		{`file.hasLink(file("Textbook.md"))`, `true`},
		{`file.hasLink("Nothing")`, `false`},
		{`file.hasProperty("price")`, `true`},
		{`file.hasProperty("nope")`, `false`},
		{`file.hasTag("tag1", "book")`, `true`},
		{`file.hasTag("scifi")`, `true`},
		{`file.hasTag("sci")`, `false`},
		{`file.inFolder("Books")`, `true`},
		{`file.inFolder("Boo")`, `false`},
		// Object
		{`{}.isEmpty()`, `true`},
		{`{"a": 1, "b": 2}.keys()`, `["a","b"]`},
		{`{"a": 1, "b": 2}.values()`, `[1,2]`},
		{`{"a": 1}.a`, `1`},
		{`{"a": 1}["a"]`, `1`},
		// Regexp
		{`/abc/.matches("abcde")`, `true`},
		{`/ABC/i.matches("abcde")`, `true`},
		// Bases syntax page
		{`date("2024-12-01") + "1M" + "4h" + "3m"`, `"2025-01-01T04:03:00"`},
		{`(now() + "1d") - now()`, `86400000`},
		{`now() + "1 day"`, `"2025-05-28T14:30:15"`},
		{`file.mtime > now() - "1 week"`, `true`},
		{`date("2025-01-31") + "1M"`, `"2025-02-28"`},
		{`today() + "7d"`, `"2025-06-03"`},
		{`if(price, price.toFixed(2) + " dollars")`, `"12.50 dollars"`},
		{`(price / age).toFixed(2)`, `"2.50"`},
		{`note.price`, `12.5`},
		{`note["price"]`, `12.5`},
		{`tasks[0]`, `"a"`},
		{`radius * (2 * 3.14)`, `null`},
		{`author == this`, `false`},
		{`author.asFile()`, `"People/Herbert.md"`},
		{`author == link("Herbert")`, `true`},
		{`author == file("People/Herbert.md")`, `true`},
		{`list(author).contains(file("People/Herbert.md"))`, `true`},
		{`link(file.ctime.date().toString())`, `"[[2024-01-02]]"`},
		// Formulas page
		{`start_date + "2w"`, `"2025-05-15"`},
		{`if(due_date < now() && status != "Done", "Overdue", "")`, `"Overdue"`},
		{`if(price, "$" + price.toFixed(2), "")`, `"$12.50"`},
		{`tasks.length`, `3`},
		{`(impact * urgency) / effort`, `6`},
		{`first_name + " " + last_name`, `"Frank Herbert"`},
		{`price * quantity`, `62.5`},
		{`file.name + " - " + status`, `"Dune.md - open"`},
		{`price > 0 && quantity > 0`, `true`},
		{`20 > price`, `true`},
		{`12.5 < price`, `false`},
		{`price >= 12.5`, `true`},
		{`note.price <= 12`, `false`},
		{`status > 1`, `false`},
		{`missing < 1`, `false`},
		{`"open" == status`, `true`},
		{`!isModified`, `false`},
		{`tags.contains("book")`, `true`},
		{`due_date.format("YYYY-MM-DD")`, `"2025-05-20"`},
		{`file.name.lower()`, `"dune.md"`},
	}
	for _, tt := range tests {
		got, err := evalJSON(t, src, book, tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
}

// TestErrors checks that what the engine does not know is named, with
// its place, and never answered as empty.
func TestErrors(t *testing.T) {
	src := newMemSource(&File{Path: "a.md"})
	tests := []struct{ expr, want string }{
		{`foo(1)`, `expression at 1:1: unknown function foo()`},
		{`"x".upperCase()`, `expression at 1:5: unknown function upperCase()`},
		{`file.nope`, `expression at 1:6: unknown file property "file.nope"`},
		{`formula.x`, `expression at 1:9: unknown formula "formula.x"`},
		{`1 +`, `expression at 1:4: unexpected end of expression`},
		{`(1`, `expression at 1:3: expected ")", found end of expression`},
		{"a &&\n  b(", `expression at 2:5: unexpected end of expression`},
		{`"abc`, `expression at 1:1: string has no closing "`},
		{`if(1)`, `expression at 1:1: if() takes 2 to 3 arguments, not 1`},
		{`5.lower()`, `expression at 1:3: lower() is not a function of a number`},
		{`"x".nope`, `expression at 1:5: a string has no property "nope"`},
		{`date("soon")`, `expression at 1:1: date(): "soon" is not a date (YYYY-MM-DD or YYYY-MM-DD HH:mm:ss)`},
		{`/(?=a)/.matches("a")`, `expression at 1:1: regular expression /(?=a)/ is not supported`},
		{`1 # 2`, `expression at 1:3: unexpected character '#'`},
		{`"a" - 1`, `expression at 1:5: cannot apply - to a string and a number`},
	}
	for _, tt := range tests {
		_, err := evalJSON(t, src, nil, tt.expr)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %s", tt.expr, err, tt.want)
		}
	}
}

// TestDurationBounds: a duration longer than any two dates are apart is
// not a duration, and arithmetic that would make one fails, instead of
// wrapping its month count around (99999999999M moved a date to the
// year -178954944).
func TestDurationBounds(t *testing.T) {
	src := newMemSource()
	for _, expr := range []string{
		`date("2025-01-01") - "99999999999M"`,
		`date("2025-01-01") + duration("99999999999M")`,
		`date("2025-01-01") - "99999999999y"`,
		`duration("99999999999M")`,
		`date("2025-01-01") + duration("1M") * 1e10`,
		`[1,2,3,4,5,6,7,8].reduce(acc + duration("500000y"), duration("0d"))`,
	} {
		if got, err := evalJSON(t, src, nil, expr); err == nil {
			t.Errorf("%s = %s, want an error", expr, got)
		}
	}
	for expr, want := range map[string]string{
		`date("2025-01-31") + "1M"`:               `"2025-02-28"`,
		`date("2025-01-01") + "200000y"`:          `"202025-01-01"`,
		`date("2025-01-01") - duration("1y") * 3`: `"2022-01-01"`,
	} {
		if got, err := evalJSON(t, src, nil, expr); err != nil || got != want {
			t.Errorf("%s = %s, %v; want %s", expr, got, err, want)
		}
	}
}

// TestNonFiniteJSON: a value JSON cannot write (a duration divided by
// zero) is written as null, as a number's Infinity is, so that it does
// not break the encoding of the whole answer.
func TestNonFiniteJSON(t *testing.T) {
	src := newMemSource()
	for _, expr := range []string{`duration("1d") / 0`, `[1/0, duration("1h") / 0]`, `today() + duration("1d") / 0`} {
		got, err := evalJSON(t, src, nil, expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s = %s, not JSON", expr, got)
		}
	}
}

// TestInvalidDateJSON: a date outside JavaScript's range (Invalid Date
// there) is written as null, not as a made-up day in the year -292275055.
func TestInvalidDateJSON(t *testing.T) {
	src := newMemSource()
	for expr, want := range map[string]string{
		`date(0/0)`:                     `null`,
		`date("2025-01-01") + 1e20`:     `null`,
		`[today() + (0/0)]`:             `[null]`,
		`date("2025-01-01") + 86400000`: `"2025-01-02T00:00:00"`,
	} {
		if got, err := evalJSON(t, src, nil, expr); err != nil || got != want {
			t.Errorf("%s = %s, %v; want %s", expr, got, err, want)
		}
	}
}
