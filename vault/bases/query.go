package bases

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Query is one view of a base, compiled: its expressions are parsed and
// checked once and run on every row.
type Query struct {
	base      *Base
	view      *View
	formulas  []*formula
	filter    filterFn
	columns   []Column
	colFns    []evalFn
	sorts     []compiledKey
	group     *compiledKey
	slots     *slots
	summaries []compiledSummary
}

// Column is one property a view shows.
type Column struct {
	// ID is the property as the view names it: "status", "file.name",
	// "formula.ppu".
	ID string `json:"id"`
	// Name is its display name (the properties section's displayName,
	// else the ID).
	Name string `json:"name"`
}

type compiledKey struct {
	fn   evalFn
	desc bool
	id   string
}

type filterFn func(e *env) (bool, error)

// Compile checks a view of the base (the first when view is "") and
// prepares it to run.
func Compile(b *Base, view string) (*Query, error) {
	v, err := b.View(view)
	if err != nil {
		return nil, err
	}
	q := &Query{base: b, view: v, slots: &slots{}}
	index := make(map[string]int, len(b.Formulas))
	for i, f := range b.Formulas {
		index[f.Name] = i
		q.formulas = append(q.formulas, &formula{name: f.Name, src: f.Expr, where: fmt.Sprintf("formula %q", f.Name)})
	}
	for _, f := range q.formulas {
		c := &compiler{slots: q.slots, where: f.where, formulas: index}
		if f.fn, err = c.compileExpr(f.src); err != nil {
			return nil, err
		}
		f.deps = c.deps
	}
	if err := formulaCycles(q.formulas); err != nil {
		return nil, err
	}
	g, err := compileFilter(q.slots, b.Filters, index)
	if err != nil {
		return nil, err
	}
	vf, err := compileFilter(q.slots, v.Filters, index)
	if err != nil {
		return nil, err
	}
	switch {
	case g == nil:
		q.filter = vf
	case vf == nil:
		q.filter = g
	default:
		q.filter = func(e *env) (bool, error) {
			ok, err := g(e)
			if !ok || err != nil {
				return false, err
			}
			return vf(e)
		}
	}
	where := fmt.Sprintf("views[%q]", v.Name)
	for _, id := range v.Order {
		fn, err := propertyFn(q.slots, id, where+".order", index)
		if err != nil {
			return nil, err
		}
		name := b.DisplayNames[id]
		if name == "" {
			name = id
		}
		q.columns = append(q.columns, Column{ID: id, Name: name})
		q.colFns = append(q.colFns, fn)
	}
	for i, s := range v.Sort {
		fn, err := propertyFn(q.slots, s.Property, fmt.Sprintf("%s.sort[%d]", where, i), index)
		if err != nil {
			return nil, err
		}
		q.sorts = append(q.sorts, compiledKey{fn: fn, desc: s.Desc, id: s.Property})
	}
	if err := q.compileSummaries(where, index); err != nil {
		return nil, err
	}
	if v.GroupBy != nil {
		fn, err := propertyFn(q.slots, v.GroupBy.Property, where+".groupBy", index)
		if err != nil {
			return nil, err
		}
		q.group = &compiledKey{fn: fn, desc: v.GroupBy.Desc, id: v.GroupBy.Property}
	}
	return q, nil
}

// propertyFn reads a property a view names: note.x or x, file.x,
// formula.x.
func propertyFn(sl *slots, id, where string, formulas map[string]int) (evalFn, error) {
	c := &compiler{slots: sl, where: where, formulas: formulas}
	prefix, name, _ := strings.Cut(id, ".")
	n := &node{}
	switch prefix {
	case "note":
		return c.propFn(name), nil
	case "formula":
		return c.formulaRef(n, name)
	case "file":
		if !fileFields[name] {
			return nil, c.errAt(n, "unknown file property %q", id)
		}
		return func(e *env) (Value, error) { return fileField(e, e.file, name), nil }, nil
	}
	return c.propFn(id), nil
}

// formulaCycles names a formula that depends on itself.
func formulaCycles(fs []*formula) error {
	state := make([]uint8, len(fs))
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			at := slices.Index(path, fs[i].name)
			cycle := append(slices.Clone(path[at:]), fs[i].name)
			return &Error{Where: fs[i].where, Msg: "circular reference: " + strings.Join(cycle, " → ")}
		case 2:
			return nil
		}
		state[i] = 1
		path = append(path, fs[i].name)
		for _, d := range fs[i].deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		state[i] = 2
		return nil
	}
	for i := range fs {
		if err := visit(i); err != nil {
			return err
		}
	}
	return nil
}

func compileFilter(sl *slots, f *Filter, formulas map[string]int) (filterFn, error) {
	if f == nil {
		return nil, nil
	}
	if f.Op == "" {
		c := &compiler{slots: sl, where: f.Where, formulas: formulas}
		fn, err := c.compileExpr(f.Expr)
		if err != nil {
			return nil, err
		}
		where := f.Where
		return func(e *env) (bool, error) {
			v, err := fn(e)
			if err != nil {
				return false, rowError(where, e, err)
			}
			return v.Truthy(), nil
		}, nil
	}
	kids := make([]filterFn, 0, len(f.Kids))
	for _, k := range f.Kids {
		fn, err := compileFilter(sl, k, formulas)
		if err != nil {
			return nil, err
		}
		kids = append(kids, fn)
	}
	switch f.Op {
	case "and":
		return func(e *env) (bool, error) {
			for _, k := range kids {
				if ok, err := k(e); !ok || err != nil {
					return false, err
				}
			}
			return true, nil
		}, nil
	case "or":
		return func(e *env) (bool, error) {
			var first error
			for _, k := range kids {
				ok, err := k(e)
				if ok {
					return true, nil
				}
				if first == nil {
					first = err
				}
			}
			return false, first
		}, nil
	}
	// not: none of the filters holds.
	return func(e *env) (bool, error) {
		for _, k := range kids {
			ok, err := k(e)
			if err != nil {
				return false, err
			}
			if ok {
				return false, nil
			}
		}
		return true, nil
	}, nil
}

// rowError places an evaluation failure: which part of the base, where
// in its expression, on which note.
func rowError(where string, e *env, err error) error {
	var be *Error
	if errors.As(err, &be) {
		return err
	}
	out := &Error{Where: where, Msg: err.Error()}
	if e.file != nil {
		out.Path = e.file.Path
	}
	var rt *runtimeErr
	if errors.As(err, &rt) {
		out.Pos, out.Msg = rt.pos, rt.msg
		if s := err.Error(); s != rt.Error() {
			// In a formula: keep the formula's name, which the message
			// carries ("in formula \"x\": …").
			out.Msg = strings.TrimSuffix(s, rt.Error()) + rt.msg
		}
	}
	return out
}

// Options are what an evaluation needs besides the files.
type Options struct {
	// This is the file `this` stands for: the base file, or the note that
	// embeds it. nil makes `this` null.
	This *File
	// Now is the moment now() and today() give; zero means time.Now().
	Now time.Time
	// Location is the time zone of dates without one; nil means
	// time.Local.
	Location *time.Location
	// Offset and Limit pick the rows whose values Run computes (Limit 0:
	// all of them). Total and Groups still count every row.
	Offset, Limit int
}

// Result is a view's answer.
type Result struct {
	View    string   `json:"view"`
	Type    string   `json:"type"`
	Columns []Column `json:"columns"`
	// Total is how many rows the view shows (after its limit).
	Total int `json:"total"`
	// Rows are the rows Options asked for, in the view's order.
	Rows []Row `json:"rows"`
	// Groups are every group of a grouped view, in order.
	Groups []Group `json:"groups,omitempty"`
	// Summaries are the view's summaries over all its rows.
	Summaries []Summary `json:"summaries,omitempty"`
	// Errors counts the rows on which an expression failed, with the
	// first few failures; such a row is left out by a failing filter and
	// shows null for a failing property.
	Errors *RowErrors `json:"errors,omitempty"`
}

// Row is one file of a view.
type Row struct {
	Path string `json:"path"`
	// Values holds one value per column.
	Values []Value `json:"values"`
	// Group is the index in Result.Groups of the row's group (grouped
	// views only).
	Group *int `json:"group,omitempty"`
}

// Group is one group of a grouped view: rows [Start, Start+Count) of the
// view share the value Key.
type Group struct {
	Key   Value `json:"key"`
	Start int   `json:"start"`
	Count int   `json:"count"`
}

// RowErrors summarizes evaluation failures.
type RowErrors struct {
	Count int      `json:"count"`
	First []string `json:"first"`
}

// maxErrorsShown is how many failures Result.Errors spells out.
const maxErrorsShown = 5

func (r *Result) addError(err error) {
	if r.Errors == nil {
		r.Errors = &RowErrors{}
	}
	r.Errors.Count++
	if len(r.Errors.First) < maxErrorsShown {
		r.Errors.First = append(r.Errors.First, err.Error())
	}
}

// Run evaluates the view over the files of src.
func (q *Query) Run(ctx context.Context, src Source, o Options) (*Result, error) {
	rs := &runState{ctx: ctx, src: src, now: o.Now, loc: o.Location, this: o.This, formulas: q.formulas}
	if rs.now.IsZero() {
		rs.now = time.Now()
	}
	if rs.loc == nil {
		rs.loc = time.Local
	}
	res := &Result{View: q.view.Name, Type: q.view.Type, Columns: q.columns, Rows: []Row{}}
	if res.Columns == nil {
		res.Columns = []Column{}
	}
	nf := len(q.formulas)
	e := &env{rs: rs}
	// A row's formulas are computed once per row and phase (filter, sort
	// keys, page values) into scratch slots: keeping them for every row
	// kept cost more in memory than computing them again.
	e.fv, e.fs = make([]Value, nf), make([]uint8, nf)
	if cs, ok := src.(Columns); ok {
		e.cols = make([][]Value, len(q.slots.props))
		for i, name := range q.slots.props {
			e.cols[i] = cs.Column(name)
		}
		e.tagged = make([][]bool, len(q.slots.tags))
		for i, tag := range q.slots.tags {
			e.tagged[i] = cs.Tagged(tag)
		}
	}
	var (
		kept      []*File
		keptRow   []int32
		row       = -1
		cancelled error
	)
	if err := src.Files(ctx, func(f *File) bool {
		if row++; row&1023 == 1023 {
			if cancelled = ctx.Err(); cancelled != nil {
				return false
			}
		}
		clear(e.fs)
		e.file, e.row, e.work = f, row, 0
		if q.filter != nil {
			ok, err := q.filter(e)
			if err != nil {
				res.addError(err)
			}
			if !ok {
				return rs.abort == nil
			}
		}
		kept, keptRow = append(kept, f), append(keptRow, int32(row))
		return true
	}); err != nil {
		return nil, err
	}
	if cancelled != nil {
		return nil, cancelled
	}
	if rs.abort != nil {
		return nil, rs.abort
	}
	setRow := func(r int) {
		e.file, e.row, e.work = kept[r], int(keptRow[r]), 0
		clear(e.fs)
	}
	eval := func(fn evalFn, where string) Value {
		v, err := fn(e)
		if err != nil {
			res.addError(rowError(where, e, err))
			return Value{}
		}
		return v
	}
	// Every row's sort keys, then the rows ordered by them.
	keys := q.sorts
	if q.group != nil {
		keys = append([]compiledKey{*q.group}, keys...)
	}
	nk := len(keys)
	kv := make([]Value, len(kept)*nk)
	for r := range kept {
		setRow(r)
		for k, key := range keys {
			kv[r*nk+k] = eval(key.fn, key.id)
		}
	}
	if rs.abort != nil {
		return nil, rs.abort
	}
	order := make([]int32, len(kept))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		for k, key := range keys {
			x, y := &kv[int(a)*nk+k], &kv[int(b)*nk+k]
			if x.kind == Number && y.kind == Number {
				c := cmpFloat(x.num, y.num)
				if key.desc {
					c = -c
				}
				if c != 0 {
					return c
				}
				continue
			}
			// Empty values go last whichever the direction.
			if xe, ye := x.isEmpty(), y.isEmpty(); xe != ye {
				if xe {
					return 1
				}
				return -1
			}
			c := sortCompare(e, *x, *y)
			if key.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		// Sources list files by path: ties keep that order.
		return int(a) - int(b)
	})
	if l := q.view.Limit; l > 0 && len(order) > l {
		order = order[:l]
	}
	res.Total = len(order)
	var groupOf []int
	if q.group != nil {
		groupOf = make([]int, len(order))
		for i, r := range order {
			k := kv[int(r)*nk]
			if n := len(res.Groups); n == 0 || !equal(e, res.Groups[n-1].Key, k) {
				res.Groups = append(res.Groups, Group{Key: k, Start: i})
			}
			res.Groups[len(res.Groups)-1].Count++
			groupOf[i] = len(res.Groups) - 1
		}
	}
	for _, s := range q.summaries {
		out := Summary{Property: s.property, Name: s.name}
		if s.custom {
			// Custom summaries use list functions (mean()) the Functions
			// page does not define.
			out.Error = fmt.Sprintf("summary %q is one of the base's own formulas, which this server does not compute", s.name)
		} else {
			vals := make([]Value, len(order))
			for i, r := range order {
				setRow(int(r))
				vals[i] = eval(s.fn, s.property)
			}
			out.Value = s.agg(e, vals)
		}
		res.Summaries = append(res.Summaries, out)
	}
	if rs.abort != nil {
		return nil, rs.abort
	}
	from := min(max(o.Offset, 0), len(order))
	to := len(order)
	if o.Limit > 0 {
		to = min(to, from+o.Limit)
	}
	for i := from; i < to; i++ {
		r := int(order[i])
		setRow(r)
		vals := make([]Value, len(q.colFns))
		for c, fn := range q.colFns {
			vals[c] = eval(fn, q.columns[c].ID)
		}
		out := Row{Path: kept[r].Path, Values: vals}
		if groupOf != nil {
			g := groupOf[i]
			out.Group = &g
		}
		res.Rows = append(res.Rows, out)
	}
	if rs.abort != nil {
		return nil, rs.abort
	}
	return res, nil
}

// Eval evaluates one expression for file f (nil: no row), for tests and
// tools that check an expression alone.
func Eval(ctx context.Context, expr string, src Source, f *File, o Options) (Value, error) {
	c := &compiler{slots: &slots{}, where: "expression", formulas: map[string]int{}}
	fn, err := c.compileExpr(expr)
	if err != nil {
		return Value{}, err
	}
	rs := &runState{ctx: ctx, src: src, now: o.Now, loc: o.Location, this: o.This}
	if rs.now.IsZero() {
		rs.now = time.Now()
	}
	if rs.loc == nil {
		rs.loc = time.Local
	}
	if f == nil {
		f = &File{}
	}
	e := &env{rs: rs, file: f}
	v, err := fn(e)
	if err != nil {
		return Value{}, rowError("expression", e, err)
	}
	return v, nil
}
