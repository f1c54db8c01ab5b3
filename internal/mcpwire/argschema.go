package mcpwire

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argSchema is one compiled (sub)schema of a tool's input: the part of
// JSON Schema the tools' input schemas use. compileArgSchema refuses any
// other keyword, so a tool whose schema needs more fails the schema tests
// rather than being checked loosely; the differential test holds the
// checks and their messages to a full JSON Schema validator's.
//
// It replaces a general validator (github.com/santhosh-tekuri/jsonschema)
// on the call path: that one needed each call's arguments encoded and
// decoded again into its own value types and then walked its general
// schema model, about 38 µs and 60 allocations a call, where this check
// reads the decoded arguments in place (about 2 µs).
type argSchema struct {
	types      []string // JSON types allowed; none: any
	properties map[string]*argSchema
	required   []string
	closed     bool // additionalProperties: false
	enum       []any
	items      *argSchema
	minimum    *float64
	maximum    *float64
	minLength  *int
	maxLength  *int
	minItems   *int
	maxItems   *int
}

// typeOrder lists the JSON types in the order messages name them.
var typeOrder = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{"description": true, "default": true, "title": true, "examples": true, "$schema": true}

// compileArgSchema compiles a decoded JSON schema; at is its location for
// errors.
func compileArgSchema(doc map[string]any, at string) (*argSchema, error) {
	s := &argSchema{}
	for k, raw := range doc {
		var err error
		switch k {
		case "type":
			switch t := raw.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, e := range t {
					name, ok := e.(string)
					if !ok {
						return nil, fmt.Errorf("%s: type %v is not a string", at, e)
					}
					s.types = append(s.types, name)
				}
			default:
				err = fmt.Errorf("type is %T", raw)
			}
			for _, t := range s.types {
				if !slices.Contains(typeOrder, t) {
					return nil, fmt.Errorf("%s: unknown type %q", at, t)
				}
			}
			// Named in one order in messages, whatever the schema's.
			slices.SortFunc(s.types, func(a, b string) int {
				return slices.Index(typeOrder, a) - slices.Index(typeOrder, b)
			})
		case "properties":
			props, ok := raw.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: properties is %T", at, raw)
			}
			s.properties = make(map[string]*argSchema, len(props))
			for name, p := range props {
				sub, ok := p.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s: property %q is %T", at, name, p)
				}
				if s.properties[name], err = compileArgSchema(sub, at+"/properties/"+name); err != nil {
					return nil, err
				}
			}
		case "required":
			list, ok := raw.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: required is %T", at, raw)
			}
			for _, e := range list {
				name, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s: required %v is not a string", at, e)
				}
				s.required = append(s.required, name)
			}
		case "additionalProperties":
			switch v := raw.(type) {
			case bool:
				s.closed = !v
			case map[string]any:
				if len(v) != 0 {
					return nil, fmt.Errorf("%s: additionalProperties other than true or false is not supported", at)
				}
			default:
				return nil, fmt.Errorf("%s: additionalProperties is %T", at, raw)
			}
		case "enum":
			list, ok := raw.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: enum is %T", at, raw)
			}
			for _, e := range list {
				switch e.(type) {
				case string, float64, bool, nil:
				default:
					return nil, fmt.Errorf("%s: enum value %v is not a string, number, boolean or null", at, e)
				}
			}
			s.enum = list
		case "items":
			sub, ok := raw.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: items is %T (only one schema for every item is supported)", at, raw)
			}
			s.items, err = compileArgSchema(sub, at+"/items")
		case "minimum":
			s.minimum, err = number(raw)
		case "maximum":
			s.maximum, err = number(raw)
		case "minLength":
			s.minLength, err = count(raw)
		case "maxLength":
			s.maxLength, err = count(raw)
		case "minItems":
			s.minItems, err = count(raw)
		case "maxItems":
			s.maxItems, err = count(raw)
		default:
			if !annotations[k] {
				return nil, fmt.Errorf("%s: keyword %q is not supported by the argument check (internal/mcpwire/argschema.go)", at, k)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", at, k, err)
		}
	}
	return s, nil
}

func number(raw any) (*float64, error) {
	f, ok := raw.(float64)
	if !ok {
		return nil, fmt.Errorf("not a number: %v", raw)
	}
	return &f, nil
}

func count(raw any) (*int, error) {
	f, ok := raw.(float64)
	if !ok || f < 0 || f != math.Trunc(f) {
		return nil, fmt.Errorf("not a count: %v", raw)
	}
	n := int(f)
	return &n, nil
}

// argProblem is one way a value fails its schema.
type argProblem struct {
	at    []string // where in the arguments: property names and item indexes
	kind  problemKind
	msg   string   // for kindOther: the problem in words
	names []string // for kindRequired and kindUnknown: the arguments
}

type problemKind int

const (
	kindOther problemKind = iota
	kindRequired
	kindUnknown
	kindRootType // the arguments are not an object
)

// check appends to probs every way v fails s. Like a JSON Schema
// validator, a value of the wrong type is reported for that alone.
func (s *argSchema) check(v any, at []string, probs []argProblem) []argProblem {
	if len(s.types) > 0 {
		got := jsonType(v)
		ok := slices.Contains(s.types, got)
		if !ok && got == "number" && slices.Contains(s.types, "integer") {
			f := v.(float64)
			ok = f == math.Trunc(f) && !math.IsInf(f, 0)
		}
		if !ok {
			if len(at) == 0 {
				return append(probs, argProblem{kind: kindRootType})
			}
			return append(probs, argProblem{at: at, msg: fmt.Sprintf("got %s, want %s", got, strings.Join(s.types, " or "))})
		}
	}
	if s.enum != nil && !slices.Contains(s.enum, v) {
		want := make([]string, len(s.enum))
		for i, e := range s.enum {
			want[i] = display(e)
		}
		msg := "value must be one of " + strings.Join(want, ", ")
		if len(want) == 1 {
			msg = "value must be " + want[0]
		}
		probs = append(probs, argProblem{at: at, msg: msg})
	}
	switch v := v.(type) {
	case float64:
		if s.minimum != nil && v < *s.minimum {
			probs = append(probs, argProblem{at: at, msg: fmt.Sprintf("must be at least %s, got %s", plainFloat(*s.minimum), plainFloat(v))})
		}
		if s.maximum != nil && v > *s.maximum {
			probs = append(probs, argProblem{at: at, msg: fmt.Sprintf("must be at most %s, got %s", plainFloat(*s.maximum), plainFloat(v))})
		}
	case string:
		if s.minLength != nil || s.maxLength != nil {
			n := utf8.RuneCountInString(v)
			if s.minLength != nil && n < *s.minLength {
				probs = append(probs, argProblem{at: at, msg: fmt.Sprintf("must be at least %d characters long, got %d", *s.minLength, n)})
			}
			if s.maxLength != nil && n > *s.maxLength {
				probs = append(probs, argProblem{at: at, msg: fmt.Sprintf("must be at most %d characters long, got %d", *s.maxLength, n)})
			}
		}
	case []any:
		if s.minItems != nil && len(v) < *s.minItems {
			probs = append(probs, argProblem{at: at, msg: fmt.Sprintf("minItems: got %d, want %d", len(v), *s.minItems)})
		}
		if s.maxItems != nil && len(v) > *s.maxItems {
			probs = append(probs, argProblem{at: at, msg: fmt.Sprintf("maxItems: got %d, want %d", len(v), *s.maxItems)})
		}
		if s.items != nil {
			for i, e := range v {
				probs = s.items.check(e, append(slices.Clip(at), strconv.Itoa(i)), probs)
			}
		}
	case map[string]any:
		var missing, unknown []string
		for _, name := range s.required {
			if _, ok := v[name]; !ok {
				missing = append(missing, name)
			}
		}
		if missing != nil {
			probs = append(probs, argProblem{at: at, kind: kindRequired, names: missing})
		}
		for name, e := range v {
			if p, ok := s.properties[name]; ok {
				probs = p.check(e, append(slices.Clip(at), name), probs)
			} else if s.closed {
				unknown = append(unknown, name)
			}
		}
		if unknown != nil {
			slices.Sort(unknown)
			probs = append(probs, argProblem{at: at, kind: kindUnknown, names: unknown})
		}
	}
	return probs
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// display writes an enum value as JSON Schema validators do: a string in
// single quotes.
func display(v any) string {
	if s, ok := v.(string); ok {
		s = strconv.Quote(s)
		s = strings.ReplaceAll(s, `\"`, `"`)
		s = strings.ReplaceAll(s, `'`, `\'`)
		return "'" + s[1:len(s)-1] + "'"
	}
	if f, ok := v.(float64); ok {
		return plainFloat(f)
	}
	return fmt.Sprint(v)
}

// plainFloat writes f as an integer when it is one, else as a decimal
// (never 1e+07).
func plainFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(f, 'f', 6, 64), "0"), ".")
}
