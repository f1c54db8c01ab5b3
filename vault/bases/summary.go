package bases

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Summary is one computed summary of a view: the named aggregation of a
// property over the view's rows.
type Summary struct {
	Property string `json:"property"`
	Name     string `json:"name"`
	Value    Value  `json:"value"`
	// Error says why a summary has no value (a custom summary formula).
	Error string `json:"error,omitempty"`
}

// defaultSummaries are the summaries the Bases syntax page lists, by
// name.
var defaultSummaries = map[string]func(e *env, vals []Value) Value{
	"Average": func(_ *env, vals []Value) Value {
		ns := numbers(vals)
		if len(ns) == 0 {
			return Value{}
		}
		return Num(sum(ns) / float64(len(ns)))
	},
	"Min": func(_ *env, vals []Value) Value {
		ns := numbers(vals)
		if len(ns) == 0 {
			return Value{}
		}
		return Num(slices.Min(ns))
	},
	"Max": func(_ *env, vals []Value) Value {
		ns := numbers(vals)
		if len(ns) == 0 {
			return Value{}
		}
		return Num(slices.Max(ns))
	},
	"Sum": func(_ *env, vals []Value) Value { return Num(sum(numbers(vals))) },
	"Range": func(_ *env, vals []Value) Value {
		if ns := numbers(vals); len(ns) > 0 {
			return Num(slices.Max(ns) - slices.Min(ns))
		}
		ds := dates(vals)
		if len(ds) == 0 {
			return Value{}
		}
		return DurationValue(0, slices.Max(ds)-slices.Min(ds))
	},
	"Median": func(_ *env, vals []Value) Value {
		ns := numbers(vals)
		if len(ns) == 0 {
			return Value{}
		}
		slices.Sort(ns)
		if len(ns)%2 == 1 {
			return Num(ns[len(ns)/2])
		}
		return Num((ns[len(ns)/2-1] + ns[len(ns)/2]) / 2)
	},
	"Stddev": func(_ *env, vals []Value) Value {
		ns := numbers(vals)
		if len(ns) == 0 {
			return Value{}
		}
		mean := sum(ns) / float64(len(ns))
		var sq float64
		for _, n := range ns {
			sq += (n - mean) * (n - mean)
		}
		return Num(math.Sqrt(sq / float64(len(ns))))
	},
	"Earliest": func(_ *env, vals []Value) Value { return extremeDate(vals, -1) },
	"Latest":   func(_ *env, vals []Value) Value { return extremeDate(vals, 1) },
	"Checked":  func(_ *env, vals []Value) Value { return Num(float64(countBool(vals, true))) },
	"Unchecked": func(_ *env, vals []Value) Value {
		return Num(float64(countBool(vals, false)))
	},
	"Empty": func(_ *env, vals []Value) Value {
		n := 0
		for _, v := range vals {
			if v.isEmpty() {
				n++
			}
		}
		return Num(float64(n))
	},
	"Filled": func(_ *env, vals []Value) Value {
		n := 0
		for _, v := range vals {
			if !v.isEmpty() {
				n++
			}
		}
		return Num(float64(n))
	},
	"Unique": func(e *env, vals []Value) Value {
		var seen []Value
		for _, v := range vals {
			if v.isEmpty() || slices.ContainsFunc(seen, func(s Value) bool { return equal(e, s, v) }) {
				continue
			}
			seen = append(seen, v)
		}
		return Num(float64(len(seen)))
	},
}

// numbers are the numeric values, text that reads as a number included
// (a formula ending in toFixed()), as JavaScript's Number() reads it.
func numbers(vals []Value) []float64 {
	var out []float64
	for _, v := range vals {
		switch v.kind {
		case Number:
			if !math.IsNaN(v.num) {
				out = append(out, v.num)
			}
		case String:
			if strings.TrimSpace(v.str) == "" {
				continue
			}
			if n, err := toNumber(v, Pos{}); err == nil && !math.IsNaN(n.num) {
				out = append(out, n.num)
			}
		}
	}
	return out
}

func dates(vals []Value) []float64 {
	var out []float64
	for _, v := range vals {
		if v.kind == Date {
			out = append(out, v.num)
		}
	}
	return out
}

func sum(ns []float64) float64 {
	var s float64
	for _, n := range ns {
		s += n
	}
	return s
}

func extremeDate(vals []Value, sign int) Value {
	var best Value
	for _, v := range vals {
		if v.kind == Date && (best.kind == Null || cmpFloat(v.num, best.num) == sign) {
			best = v
		}
	}
	return best
}

func countBool(vals []Value, want bool) int {
	n := 0
	for _, v := range vals {
		if v.kind == Boolean && (v.num != 0) == want {
			n++
		}
	}
	return n
}

// compiledSummary is one of a view's summaries, ready to run.
type compiledSummary struct {
	property, name string
	fn             evalFn
	agg            func(e *env, vals []Value) Value
	custom         bool
}

// compileSummaries checks a view's summaries: each names a default
// summary or one of the base's own; the properties are read like
// columns. They come in the order of the view's columns, then by name.
func (q *Query) compileSummaries(where string, index map[string]int) error {
	props := make([]string, 0, len(q.view.Summaries))
	for p := range q.view.Summaries {
		props = append(props, p)
	}
	slices.SortFunc(props, func(a, b string) int {
		ia, ib := slices.Index(q.view.Order, a), slices.Index(q.view.Order, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, p := range props {
		name := q.view.Summaries[p]
		fn, err := propertyFn(q.slots, p, where+".summaries", index)
		if err != nil {
			return err
		}
		s := compiledSummary{property: p, name: name, fn: fn}
		switch agg, ok := defaultSummaries[name]; {
		case ok:
			s.agg = agg
		case q.base.Summaries[name] != "":
			s.custom = true
		default:
			return &Error{Where: where + ".summaries", Msg: fmt.Sprintf("unknown summary %q for %s: the base defines none by that name, and the defaults are Average, Min, Max, Sum, Range, Median, Stddev, Earliest, Latest, Checked, Unchecked, Empty, Filled, Unique", name, p)}
		}
		q.summaries = append(q.summaries, s)
	}
	return nil
}
