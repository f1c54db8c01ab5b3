package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// argValidator checks tool arguments against each tool's input schema
// before the handler runs, so a missing or mistyped argument is a clear
// tool error and never a zero value silently used. mcp-go has the same
// check built in, but its messages read "<root>: &{Missing:[path]}";
// agents act on these messages, so they must read well.
//
// Each tool's schema is compiled at its first call, not when the server is
// assembled: compiling checks every schema against the JSON Schema
// metaschema, about 4 ms for all the tools, which start-up (answering
// initialize within 30 ms) cannot spare. compileAll does them all at once
// for tests, so a schema the library refuses still fails a test.
type argValidator struct {
	schemas map[string]func() (*jsonschema.Schema, error)
	params  map[string][]string // each tool's argument names, for hints
	printer *message.Printer
}

func newArgValidator(tools []server.ServerTool) (*argValidator, error) {
	v := &argValidator{
		schemas: make(map[string]func() (*jsonschema.Schema, error), len(tools)),
		params:  make(map[string][]string, len(tools)),
		printer: message.NewPrinter(language.English),
	}
	for _, t := range tools {
		in := t.Tool.InputSchema
		if in.AdditionalProperties == nil {
			// As WithStrictInputSchemaDefault publishes it.
			in.AdditionalProperties = false
		}
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encode input schema: %w", t.Tool.Name, err)
		}
		name := t.Tool.Name
		v.schemas[name] = sync.OnceValues(func() (*jsonschema.Schema, error) {
			return compileSchema(name, raw)
		})
		names := make([]string, 0, len(t.Tool.InputSchema.Properties))
		for name := range t.Tool.InputSchema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		v.params[t.Tool.Name] = names
	}
	return v, nil
}

// compileSchema compiles one tool's encoded input schema.
func compileSchema(tool string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tool %s: decode input schema: %w", tool, err)
	}
	url := "mem:///tools/" + tool + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: %w", tool, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: compile input schema: %w", tool, err)
	}
	return compiled, nil
}

// compileAll compiles every tool's schema now, returning the first error.
func (v *argValidator) compileAll() error {
	for _, compile := range v.schemas {
		if _, err := compile(); err != nil {
			return err
		}
	}
	return nil
}

// middleware returns the validating tool-handler middleware.
func (v *argValidator) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		compile, ok := v.schemas[req.Params.Name]
		if !ok {
			return next(ctx, req)
		}
		schema, err := compile()
		if err != nil {
			// The schema tests compile every tool's schema; this is a
			// bug, reported rather than skipped.
			return nil, fmt.Errorf("validate arguments: %w", err)
		}
		args, err := argumentValue(req.Params.Arguments)
		if err != nil {
			return validationError(fmt.Sprintf("arguments must be a JSON object: %v", err)), nil
		}
		if err := schema.Validate(args); err != nil {
			return validationError(v.describe(req.Params.Name, err)), nil
		}
		return next(ctx, req)
	}
}

func argumentValue(raw any) (any, error) {
	if raw == nil {
		return map[string]any{}, nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 || string(data) == "null" {
		return map[string]any{}, nil
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// describe renders a validation failure as one sentence per problem, in
// the words of the tool's arguments.
func (v *argValidator) describe(tool string, err error) string {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return "invalid arguments: " + err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		msgs = append(msgs, v.leaf(tool, e))
	}
	walk(verr)
	slices.Sort(msgs)
	msgs = slices.Compact(msgs)
	return "invalid arguments for " + tool + ": " + strings.Join(msgs, "; ")
}

func (v *argValidator) leaf(tool string, e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return "missing required argument " + quoteAll(k.Missing)
	case *kind.AdditionalProperties:
		if len(v.params[tool]) == 0 {
			return fmt.Sprintf("unknown argument %s (%s takes no arguments)", quoteAll(k.Properties), tool)
		}
		return fmt.Sprintf("unknown argument %s (%s takes: %s)", quoteAll(k.Properties), tool, strings.Join(v.params[tool], ", "))
	case *kind.Type:
		if len(e.InstanceLocation) == 0 {
			return "arguments must be a JSON object"
		}
	}
	where := strings.Join(e.InstanceLocation, ".")
	// Bounds are said in plain numbers: the library's printer writes a
	// large one as 1×10⁰⁷.
	switch k := e.ErrorKind.(type) {
	case *kind.Maximum:
		return fmt.Sprintf("argument %q: must be at most %s, got %s", where, plainNumber(k.Want), plainNumber(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("argument %q: must be at least %s, got %s", where, plainNumber(k.Want), plainNumber(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("argument %q: must be less than %s, got %s", where, plainNumber(k.Want), plainNumber(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("argument %q: must be more than %s, got %s", where, plainNumber(k.Want), plainNumber(k.Got))
	}
	return fmt.Sprintf("argument %q: %s", where, e.ErrorKind.LocalizedString(v.printer))
}

// plainNumber writes r as an integer when it is one, else as a decimal.
func plainNumber(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".")
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func validationError(msg string) *mcp.CallToolResult {
	text, _ := json.Marshal(map[string]string{"error": msg})
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(string(text))},
		IsError: true,
	}
}
