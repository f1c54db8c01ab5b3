package bases

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxBaseBytes is the largest base file Parse reads.
const MaxBaseBytes = 1 << 20

// Base is a parsed .base file.
type Base struct {
	// Filters apply to every view; nil when there are none.
	Filters *Filter
	// Formulas in the order written.
	Formulas []FormulaDef
	// Summaries are the base's own summary formulas, by name.
	Summaries map[string]string
	// DisplayNames maps a property ("status", "formula.ppu", "file.ext")
	// to the name its column shows.
	DisplayNames map[string]string
	Views        []View
}

// FormulaDef is one formula as written.
type FormulaDef struct {
	Name, Expr string
}

// View is one entry of a base's views.
type View struct {
	Type, Name string
	// Limit is the most rows the view shows; 0 means no limit.
	Limit   int
	Filters *Filter
	// Order lists the properties the view shows, in order.
	Order []string
	// Sort orders the rows, first key first.
	Sort []SortKey
	// GroupBy groups the rows by a property; nil for no groups.
	GroupBy *SortKey
	// Summaries maps a property to a summary's name: a default one
	// (Average, Sum, …) or one of the base's own.
	Summaries map[string]string
}

// SortKey is a property and a direction.
type SortKey struct {
	Property string
	Desc     bool
}

// Filter is a filter tree: an expression, or and/or/not over filters.
type Filter struct {
	// Op is "and", "or", "not" or "" for an expression.
	Op    string
	Expr  string
	Kids  []*Filter
	Where string // where it is in the file: filters.and[1]
}

// Parse reads a base file.
func Parse(src []byte) (*Base, error) {
	if len(src) > MaxBaseBytes {
		return nil, &Error{Where: "base", Msg: fmt.Sprintf("the base file is %d bytes, over the %d this server reads", len(src), MaxBaseBytes)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, &Error{Where: "base", Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	b := &Base{DisplayNames: map[string]string{}}
	if len(doc.Content) == 0 {
		return b, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Where: "base", Msg: fmt.Sprintf("line %d: the base must be a YAML mapping (filters, formulas, properties, views)", root.Line)}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var err error
		switch k.Value {
		case "filters":
			b.Filters, err = parseFilter(v, "filters")
		case "formulas":
			err = b.parseFormulas(v)
		case "properties":
			err = b.parseProperties(v)
		case "views":
			err = b.parseViews(v)
		case "summaries":
			if v.Kind == yaml.MappingNode {
				b.Summaries = map[string]string{}
				for j := 0; j+1 < len(v.Content); j += 2 {
					b.Summaries[v.Content[j].Value] = v.Content[j+1].Value
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

func badShape(where string, n *yaml.Node, want string) error {
	return &Error{Where: where, Msg: fmt.Sprintf("line %d: expected %s", n.Line, want)}
}

func parseFilter(n *yaml.Node, where string) (*Filter, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		return &Filter{Expr: n.Value, Where: where}, nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return nil, badShape(where, n, "one of and, or, not")
		}
		op := n.Content[0].Value
		if op != "and" && op != "or" && op != "not" {
			return nil, &Error{Where: where, Msg: fmt.Sprintf("line %d: unknown filter %q (and, or, not)", n.Content[0].Line, op)}
		}
		list := n.Content[1]
		f := &Filter{Op: op, Where: where + "." + op}
		if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
			return f, nil
		}
		if list.Kind != yaml.SequenceNode {
			return nil, badShape(f.Where, list, "a list of filters")
		}
		for i, item := range list.Content {
			k, err := parseFilter(item, fmt.Sprintf("%s[%d]", f.Where, i))
			if err != nil {
				return nil, err
			}
			if k != nil {
				f.Kids = append(f.Kids, k)
			}
		}
		return f, nil
	}
	return nil, badShape(where, n, "a filter expression or and/or/not")
}

func (b *Base) parseFormulas(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return badShape("formulas", n, "a mapping of names to expressions")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return badShape(fmt.Sprintf("formula %q", k.Value), v, "an expression")
		}
		for _, f := range b.Formulas {
			if f.Name == k.Value {
				return &Error{Where: fmt.Sprintf("formula %q", k.Value), Msg: fmt.Sprintf("line %d: defined twice", k.Line)}
			}
		}
		b.Formulas = append(b.Formulas, FormulaDef{Name: k.Value, Expr: v.Value})
	}
	return nil
}

func (b *Base) parseProperties(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			if v.Content[j].Value == "displayName" {
				b.DisplayNames[k.Value] = v.Content[j+1].Value
			}
		}
	}
	return nil
}

func (b *Base) parseViews(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return badShape("views", n, "a list of views")
	}
	for i, vn := range n.Content {
		where := fmt.Sprintf("views[%d]", i)
		if vn.Kind != yaml.MappingNode {
			return badShape(where, vn, "a view (a mapping with type and name)")
		}
		v := View{}
		for j := 0; j+1 < len(vn.Content); j += 2 {
			k, val := vn.Content[j], vn.Content[j+1]
			if k.Value == "name" {
				v.Name = val.Value
				where = fmt.Sprintf("views[%q]", v.Name)
			}
		}
		for j := 0; j+1 < len(vn.Content); j += 2 {
			k, val := vn.Content[j], vn.Content[j+1]
			var err error
			switch k.Value {
			case "type":
				v.Type = val.Value
			case "limit":
				n, perr := strconv.Atoi(val.Value)
				if perr != nil || n < 0 {
					err = badShape(where+".limit", val, "a whole number ≥ 0")
				}
				v.Limit = n
			case "filters":
				v.Filters, err = parseFilter(val, where+".filters")
			case "order":
				v.Order, err = stringList(val, where+".order")
			case "sort":
				if val.Kind != yaml.SequenceNode {
					err = badShape(where+".sort", val, "a list of {property, direction}")
					break
				}
				for si, sn := range val.Content {
					s, serr := sortKey(sn, fmt.Sprintf("%s.sort[%d]", where, si))
					if serr != nil {
						return serr
					}
					v.Sort = append(v.Sort, s)
				}
			case "groupBy":
				if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
					break
				}
				s, serr := sortKey(val, where+".groupBy")
				if serr != nil {
					return serr
				}
				v.GroupBy = &s
			case "summaries":
				if val.Kind == yaml.MappingNode {
					v.Summaries = map[string]string{}
					for s := 0; s+1 < len(val.Content); s += 2 {
						v.Summaries[val.Content[s].Value] = val.Content[s+1].Value
					}
				}
			}
			if err != nil {
				return err
			}
		}
		b.Views = append(b.Views, v)
	}
	return nil
}

func stringList(n *yaml.Node, where string) ([]string, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, badShape(where, n, "a list of property names")
	}
	out := make([]string, 0, len(n.Content))
	for _, it := range n.Content {
		if it.Kind != yaml.ScalarNode {
			return nil, badShape(where, it, "a property name")
		}
		out = append(out, it.Value)
	}
	return out, nil
}

func sortKey(n *yaml.Node, where string) (SortKey, error) {
	if n.Kind == yaml.ScalarNode {
		return SortKey{Property: n.Value}, nil
	}
	if n.Kind != yaml.MappingNode {
		return SortKey{}, badShape(where, n, "{property, direction}")
	}
	var s SortKey
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "property":
			s.Property = v.Value
		case "direction":
			switch strings.ToUpper(v.Value) {
			case "ASC", "":
			case "DESC":
				s.Desc = true
			default:
				return s, &Error{Where: where + ".direction", Msg: fmt.Sprintf("line %d: %q is not ASC or DESC", v.Line, v.Value)}
			}
		}
	}
	if s.Property == "" {
		return s, &Error{Where: where, Msg: fmt.Sprintf("line %d: no property", n.Line)}
	}
	return s, nil
}

// View returns the view named name, the first when name is "".
func (b *Base) View(name string) (*View, error) {
	if len(b.Views) == 0 {
		if name != "" {
			return nil, &Error{Where: "views", Msg: fmt.Sprintf("no view %q: the base has no views", name)}
		}
		// A base without views still lists its files, as a table.
		return &View{Type: "table"}, nil
	}
	if name == "" {
		return &b.Views[0], nil
	}
	for i := range b.Views {
		if b.Views[i].Name == name {
			return &b.Views[i], nil
		}
	}
	names := make([]string, len(b.Views))
	for i, v := range b.Views {
		names[i] = strconv.Quote(v.Name)
	}
	return nil, &Error{Where: "views", Msg: fmt.Sprintf("no view %q; the base's views are %s", name, strings.Join(names, ", "))}
}

// FromYAML converts a decoded frontmatter value as Obsidian types it: a
// "[[wikilink]]" is a Link (written in the file from), a text that reads
// as a date is a Date, a mapping is an Object with its keys sorted.
func FromYAML(v any, from string, loc *time.Location) Value {
	switch x := v.(type) {
	case nil:
		return Value{}
	case bool:
		return Bool(x)
	case int:
		return Num(float64(x))
	case int64:
		return Num(float64(x))
	case uint64:
		return Num(float64(x))
	case float64:
		return Num(x)
	case string:
		return textValue(x, from, loc)
	case time.Time:
		y, m, d := x.Date()
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return DateValue(time.Date(y, m, d, 0, 0, 0, 0, loc), false)
		}
		return DateValue(x, true)
	case []any:
		out := make([]Value, len(x))
		for i, it := range x {
			out[i] = FromYAML(it, from, loc)
		}
		return ListValue(out)
	case map[string]any:
		o := &ObjectValue{Keys: make([]string, 0, len(x))}
		for k := range x {
			o.Keys = append(o.Keys, k)
		}
		slices.Sort(o.Keys)
		o.Vals = make([]Value, len(o.Keys))
		for i, k := range o.Keys {
			o.Vals[i] = FromYAML(x[k], from, loc)
		}
		return ObjectOf(o)
	}
	return Str(fmt.Sprint(v))
}

// textValue types a frontmatter text.
func textValue(s, from string, loc *time.Location) Value {
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") && !strings.Contains(s[2:len(s)-2], "]]") {
		t, d := parseWikilink(s)
		if i := strings.IndexAny(t, "#^"); i >= 0 {
			t = t[:i]
		}
		var disp Value
		if d != "" {
			disp = Str(d)
		}
		return LinkValue(t, from, disp)
	}
	if len(s) >= 10 && s[4] == '-' && isDigit(s[0]) {
		if d, ok := parseDate(s, loc); ok {
			return d
		}
	}
	return Str(s)
}
