package edit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Property types, as Obsidian's Properties view names them (a list is
// its "list" type; "object" and "empty" cover what it cannot show).
const (
	TypeText     = "text"
	TypeList     = "list"
	TypeNumber   = "number"
	TypeCheckbox = "checkbox"
	TypeDate     = "date"
	TypeDateTime = "datetime"
	TypeObject   = "object"
	TypeEmpty    = "empty"
)

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a YAML mapping read with its keys in the order written. It
// encodes as a JSON object in that order.
type Object []Member

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", m.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// maxDepth bounds how deep nested values are followed.
const maxDepth = 64

// maxValues bounds how many values one frontmatter may expand to: YAML
// aliases can make a few lines stand for billions of values.
const maxValues = 100_000

// valueReader turns YAML nodes into JSON-ready values: strings, float64
// or int64 numbers, booleans, nil, []any and Object. Dates stay strings
// as written. left counts down the values it may still produce; below
// zero the reading was cut short.
type valueReader struct{ left int }

func (r *valueReader) value(n *yaml.Node, depth int) any {
	r.left--
	if n == nil || depth > maxDepth || r.left < 0 {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		return r.value(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return r.value(n.Content[0], depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, min(len(n.Content), max(r.left, 0)))
		for _, c := range n.Content {
			if r.left < 0 {
				break
			}
			out = append(out, r.value(c, depth+1))
		}
		return out
	case yaml.MappingNode:
		out := make(Object, 0, min(len(n.Content)/2, max(r.left, 0)))
		for i := 0; i+1 < len(n.Content) && r.left >= 0; i += 2 {
			out = append(out, Member{Key: keyText(n.Content[i]), Value: r.value(n.Content[i+1], depth+1)})
		}
		return out
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}

// keyText is a mapping key as text (a non-scalar key is rare and shown
// as YAML).
func keyText(k *yaml.Node) string {
	if k.Kind == yaml.ScalarNode {
		return k.Value
	}
	out, err := yaml.Marshal(k)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// nodeType names a value's property type.
func nodeType(n *yaml.Node) string {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return TypeEmpty
	}
	switch n.Kind {
	case yaml.SequenceNode:
		return TypeList
	case yaml.MappingNode:
		return TypeObject
	}
	switch n.ShortTag() {
	case "!!null":
		return TypeEmpty
	case "!!bool":
		return TypeCheckbox
	case "!!int", "!!float":
		return TypeNumber
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		switch {
		case isDate(n.Value):
			return TypeDate
		case isDateTime(n.Value):
			return TypeDateTime
		}
	}
	return TypeText
}

// isDate reports whether s is written YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	return digits(s[:4]) && digits(s[5:7]) && digits(s[8:])
}

// isDateTime reports whether s is a date and time as Obsidian writes it
// (YYYY-MM-DDTHH:MM, optionally with seconds, fractions and a zone).
func isDateTime(s string) bool {
	if len(s) < 16 || !isDate(s[:10]) || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || !digits(s[11:13]) || !digits(s[14:16]) {
		return false
	}
	rest := s[16:]
	if len(rest) >= 3 && rest[0] == ':' && digits(rest[1:3]) {
		rest = rest[3:]
		if len(rest) > 1 && rest[0] == '.' {
			i := 1
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
				i++
			}
			rest = rest[i:]
		}
	}
	switch {
	case rest == "" || rest == "Z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:3]) && rest[3] == ':' && digits(rest[4:]):
		return true
	}
	return false
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// valueNode builds the YAML node a client's value is written as, the way
// Obsidian writes properties: plain scalars where YAML reads them back
// as the same value, double quotes elsewhere, dates unquoted, lists in
// block style.
func valueNode(v any, depth int) (*yaml.Node, error) {
	if depth > maxDepth {
		return nil, invalid("value nested deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}, nil
	case string:
		return stringNode(x), nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(i, 10)}, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, invalid("%s is not a number", x)
		}
		return floatNode(f)
	case float64:
		return floatNode(x)
	case float32:
		return floatNode(float64(x))
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}, nil
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}, nil
	case []any:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, item := range x {
			n, err := valueNode(item, depth+1)
			if err != nil {
				return nil, err
			}
			seq.Content = append(seq.Content, n)
		}
		if len(x) == 0 {
			seq.Style = yaml.FlowStyle // "key: []"
		}
		return seq, nil
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		return valueNode(items, depth)
	case Object:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, mem := range x {
			n, err := valueNode(mem.Value, depth+1)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, stringNode(mem.Key), n)
		}
		if len(x) == 0 {
			m.Style = yaml.FlowStyle
		}
		return m, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		obj := make(Object, len(keys))
		for i, k := range keys {
			obj[i] = Member{k, x[k]}
		}
		return valueNode(obj, depth)
	}
	return nil, invalid("cannot write a value of type %T as a property", v)
}

func floatNode(f float64) (*yaml.Node, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, invalid("%v is not a number a property can hold", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(f), 10)}, nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f, 'g', -1, 64)}, nil
}

// stringNode writes text plain when YAML reads it back as the same text,
// else double-quoted (Obsidian's choice; yaml.v3 would pick single
// quotes). Dates and date-times stay plain, as Obsidian writes its date
// properties.
func stringNode(s string) *yaml.Node {
	if isDate(s) || (isDateTime(s) && !strings.Contains(s, " ")) {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
		return n
	}
	out, err := yaml.Marshal(n)
	if err != nil || (len(out) > 0 && (out[0] == '\'' || out[0] == '"')) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// renderEntry writes "key: value" as YAML lines at the given indentation,
// ending in eol.
func renderEntry(key string, v any, indent, eol string) (string, error) {
	k := stringNode(key)
	if isDate(key) || isDateTime(key) {
		k.Style = yaml.DoubleQuotedStyle
	}
	val, err := valueNode(v, 0)
	if err != nil {
		return "", err
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, val}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return "", invalid("cannot write property %q: %v", key, err)
	}
	if err := enc.Close(); err != nil {
		return "", invalid("cannot write property %q: %v", key, err)
	}
	text := b.String()
	if v == nil {
		// Obsidian writes an empty property as "key:" rather than
		// "key: null".
		text = strings.TrimSuffix(strings.TrimRight(text, "\n"), "null") + "\n"
		text = strings.TrimRight(text, " \n") + "\n"
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		out.WriteString(indent)
		out.WriteString(strings.TrimSuffix(l, "\n"))
		out.WriteString(eol)
	}
	return out.String(), nil
}

// sameValue reports whether two JSON-ready values are equal, numbers
// compared by value.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !sameValue(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	}
	fa, aok := number(a)
	fb, bok := number(b)
	return aok && bok && fa == fb
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// normalizeValue turns a client's value into the form valueReader reads
// back (maps become Objects with sorted keys, []string becomes []any),
// so sameValue can compare them.
func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		obj := make(Object, len(keys))
		for i, k := range keys {
			obj[i] = Member{k, normalizeValue(x[k])}
		}
		return obj
	case Object:
		obj := make(Object, len(x))
		for i, m := range x {
			obj[i] = Member{m.Key, normalizeValue(m.Value)}
		}
		return obj
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = normalizeValue(item)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return v
}

// DecodeObject reads a JSON object keeping its keys in the order
// written (nested objects too), numbers as json.Number.
func DecodeObject(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, invalid("not a JSON object: %v", err)
	}
	obj, ok := v.(Object)
	if !ok {
		return nil, invalid("not a JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, invalid("not a JSON object: text after it")
	}
	return obj, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj = append(obj, Member{k, v})
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}
