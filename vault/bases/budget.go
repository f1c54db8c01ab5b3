package bases

import (
	"fmt"
	"math"
)

// The work an evaluation may do, in steps: an item of a list built, an
// iteration of filter(), map() or reduce(), a comparison of sort() or
// unique(), 16 bytes of text built. Lists share their items and a formula
// may use another twice, so a short expression can describe a value
// exponentially large ([formula.a, formula.a] nested, x.map(x).flat()
// repeated); counting what is built keeps memory and time bounded.
const (
	// maxRowWork bounds one file's evaluation: about 70 MB of list items
	// or 16 MiB of text, far beyond what a note's properties need.
	maxRowWork = 1 << 20
	// maxQueryWork bounds a whole query (a second or two of CPU).
	maxQueryWork = 1 << 26
	// bytesPerStep is how many bytes of text count as one step.
	bytesPerStep = 16
	// ctxEvery is how often, in steps, a query looks whether its
	// caller gave up.
	ctxEvery = 1 << 16
)

// spend counts n steps of work at pos: an error for this file past
// maxRowWork, and for the whole query (kept in rs.abort) past
// maxQueryWork or once the query's context is done.
func (e *env) spend(n int, pos Pos) error {
	if n < 0 {
		n = math.MaxInt32
	}
	rs := e.rs
	if rs.abort != nil {
		return rs.abort
	}
	before := rs.work
	rs.work += int64(n)
	e.work += int64(n)
	if rs.work > maxQueryWork {
		rs.abort = &Error{Where: "query", Msg: fmt.Sprintf("the view needs more than %d steps of work "+
			"(items of lists and text its expressions build, over all files); narrow its filters or simplify its formulas", maxQueryWork)}
		return rs.abort
	}
	if rs.ctx != nil && before/ctxEvery != rs.work/ctxEvery {
		if err := rs.ctx.Err(); err != nil {
			rs.abort = err
			return err
		}
	}
	if e.work > maxRowWork {
		return rtErr(pos, "the expression builds more than %d steps of work on one file (items of lists, 16-byte pieces of text); simplify it", maxRowWork)
	}
	return nil
}

// spendText counts the building of n bytes of text.
func (e *env) spendText(n int, pos Pos) error { return e.spend(n/bytesPerStep, pos) }

// spendValue counts v's items, those of the lists and objects inside it
// and its text, as built anew: shared parts are counted each time they
// appear, as printing or comparing v would visit them.
func (e *env) spendValue(v Value, pos Pos) error {
	room := min(maxRowWork-e.work, maxQueryWork-e.rs.work) + 1
	return e.spend(int(deepSize(v, max(room, 1))), pos)
}

// deepSize is v's size in steps, counted up to limit at most (so that
// counting costs no more than limit).
func deepSize(v Value, limit int64) int64 {
	var n int64
	var walk func(v Value) bool
	walk = func(v Value) bool {
		n++
		switch v.kind {
		case String:
			n += int64(len(v.str) / bytesPerStep)
		case List:
			for _, it := range v.list {
				if n > limit || !walk(it) {
					return false
				}
			}
		case Object:
			if o := v.Object(); o != nil {
				for _, it := range o.Vals {
					if n > limit || !walk(it) {
						return false
					}
				}
			}
		}
		return n <= limit
	}
	walk(v)
	return n
}
