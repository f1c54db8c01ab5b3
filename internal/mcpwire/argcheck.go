package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ArgChecker checks tool arguments against each tool's input schema
// before the handler runs, so a missing or mistyped argument is a clear
// tool error and never a zero value silently used. mcp-go has the same
// check built in, but its messages read "<root>: &{Missing:[path]}";
// agents act on these messages, so they must read well.
//
// Each tool's schema is compiled (argschema.go) at its first call, not
// when the server is assembled, from its encoding as tools/list lists it
// (ListedTools), or encoded then when there is none. compileAll does
// them all at once for tests, so a schema the check cannot hold fails a
// test.
type ArgChecker struct {
	schemas map[string]func() (*argSchema, error)
	params  map[string][]string // each tool's argument names, for hints
}

// NewArgChecker returns the check of the arguments of tools, whose input
// schemas encoded (by name, as ListedTools gives them) are in encoded; a
// tool missing from encoded has its schema encoded at its first call.
func NewArgChecker(tools []server.ServerTool, encoded map[string]json.RawMessage) *ArgChecker {
	v := &ArgChecker{
		schemas: make(map[string]func() (*argSchema, error), len(tools)),
		params:  make(map[string][]string, len(tools)),
	}
	for _, t := range tools {
		in := t.Tool.InputSchema
		if in.AdditionalProperties == nil {
			// As WithStrictInputSchemaDefault publishes it.
			in.AdditionalProperties = false
		}
		name := t.Tool.Name
		raw := encoded[name]
		v.schemas[name] = sync.OnceValues(func() (*argSchema, error) {
			if raw != nil {
				return compileSchema(name, raw)
			}
			raw, err := json.Marshal(in)
			if err != nil {
				return nil, fmt.Errorf("tool %s: encode input schema: %w", name, err)
			}
			return compileSchema(name, raw)
		})
		names := make([]string, 0, len(t.Tool.InputSchema.Properties))
		for name := range t.Tool.InputSchema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		v.params[t.Tool.Name] = names
	}
	return v
}

// compileSchema compiles one tool's encoded input schema.
func compileSchema(tool string, raw []byte) (*argSchema, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("tool %s: decode input schema: %w", tool, err)
	}
	compiled, err := compileArgSchema(doc, "#")
	if err != nil {
		return nil, fmt.Errorf("tool %s: compile input schema: %w", tool, err)
	}
	return compiled, nil
}

// compileAll compiles every tool's schema now, returning the first error.
func (v *ArgChecker) compileAll() error {
	for _, compile := range v.schemas {
		if _, err := compile(); err != nil {
			return err
		}
	}
	return nil
}

// Middleware is the tool-handler middleware that answers a call whose
// arguments fail the check with a tool error saying why, and passes the
// others on to next.
func (v *ArgChecker) Middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
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
		if probs := schema.check(args, nil, nil); len(probs) > 0 {
			return validationError(v.describe(req.Params.Name, probs)), nil
		}
		return next(ctx, req)
	}
}

// argumentValue returns the arguments as decoded JSON: as they came from
// the transport (decoded by encoding/json), or encoded and decoded again
// when a caller in the process built them from other Go types.
func argumentValue(raw any) (any, error) {
	switch raw := raw.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		if plainJSON(raw) {
			return raw, nil
		}
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 || string(data) == "null" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// plainJSON reports whether v holds only what encoding/json decodes into
// an any: maps, slices, strings, float64s, booleans and nils.
func plainJSON(v any) bool {
	switch v := v.(type) {
	case nil, string, float64, bool:
		return true
	case map[string]any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

// describe renders a validation failure as one sentence per problem, in
// the words of the tool's arguments.
func (v *ArgChecker) describe(tool string, probs []argProblem) string {
	msgs := make([]string, 0, len(probs))
	for _, p := range probs {
		msgs = append(msgs, v.leaf(tool, p))
	}
	slices.Sort(msgs)
	msgs = slices.Compact(msgs)
	return "invalid arguments for " + tool + ": " + strings.Join(msgs, "; ")
}

func (v *ArgChecker) leaf(tool string, p argProblem) string {
	switch p.kind {
	case kindRequired:
		return "missing required argument " + quoteAll(p.names)
	case kindUnknown:
		if len(v.params[tool]) == 0 {
			return fmt.Sprintf("unknown argument %s (%s takes no arguments)", quoteAll(p.names), tool)
		}
		return fmt.Sprintf("unknown argument %s (%s takes: %s)", quoteAll(p.names), tool, strings.Join(v.params[tool], ", "))
	case kindRootType:
		return "arguments must be a JSON object"
	}
	return fmt.Sprintf("argument %q: %s", strings.Join(p.at, "."), p.msg)
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
