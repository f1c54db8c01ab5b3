package bases

import (
	"context"
	"errors"
	"testing"
	"time"
)

// FuzzExpr: any text either fails to compile with a placed *Error or
// evaluates without panicking, and an error never comes without a
// message.
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		`if(price, price.toFixed(2) + " dollars")`, `(price / age).toFixed(2)`, `file.hasTag("book") && !file.inFolder("x")`,
		`[1,2,3].reduce(acc + value, 0)`, `"a:b".replace(/:/g, "-")`, `date("2024-12-01") + "1M" + "4h"`, `{"a": [1, {"b": 2}]}.a[1].b`,
		`now() - file.ctime > duration("1w")`, `-(-1).abs()`, `1.isTruthy()`, `x[0][1]`, `/[/]/.matches("/")`,
	} {
		f.Add(s)
	}
	src := newMemSource(&File{Path: "a.md", Props: *props("price", 2, "age", 4, "x", []any{[]any{1, 2}}), Tags: []string{"book"}})
	file, _ := src.File("a.md")
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := Eval(context.Background(), expr, src, file, Options{Now: testNow, Location: time.UTC})
		if err != nil {
			var be *Error
			if !errors.As(err, &be) || be.Msg == "" {
				t.Fatalf("%q: error %T %v", expr, err, err)
			}
			return
		}
		_, _ = v.MarshalJSON()
		_ = v.String()
	})
}

// FuzzBase: any base file parses or fails with a named *Error, and a
// parsed one compiles and runs or fails the same way.
func FuzzBase(f *testing.F) {
	f.Add(helpExampleBase)
	f.Add("filters: 'file.ext == \"md\"'\nviews:\n  - type: table\n    name: A\n    sort: [{property: file.name, direction: DESC}]\n")
	f.Add("formulas:\n  a: formula.b\n  b: 1\nviews:\n  - groupBy: {property: formula.a}\n")
	f.Add("views: [")
	f.Add("filters:\n  not:\n    - and: []\n")
	src := helpVault()
	f.Fuzz(func(t *testing.T, text string) {
		b, err := Parse([]byte(text))
		if err != nil {
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("%q: parse error %T %v", text, err, err)
			}
			return
		}
		for _, v := range append([]View{{}}, b.Views...) {
			q, err := Compile(b, v.Name)
			if err != nil {
				var be *Error
				if !errors.As(err, &be) {
					t.Fatalf("%q: compile error %T %v", text, err, err)
				}
				continue
			}
			if _, err := q.Run(context.Background(), src, Options{Now: testNow, Location: time.UTC, Limit: 5}); err != nil {
				t.Fatalf("%q: run: %v", text, err)
			}
		}
	})
}
