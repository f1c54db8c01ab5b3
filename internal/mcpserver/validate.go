package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

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
type argValidator struct {
	schemas map[string]*jsonschema.Schema
	params  map[string][]string // each tool's argument names, for hints
	printer *message.Printer
}

func newArgValidator(tools []server.ServerTool) (*argValidator, error) {
	v := &argValidator{
		schemas: make(map[string]*jsonschema.Schema, len(tools)),
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
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("tool %s: decode input schema: %w", t.Tool.Name, err)
		}
		url := "mem:///tools/" + t.Tool.Name + ".json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Tool.Name, err)
		}
		compiled, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %s: compile input schema: %w", t.Tool.Name, err)
		}
		v.schemas[t.Tool.Name] = compiled
		names := make([]string, 0, len(t.Tool.InputSchema.Properties))
		for name := range t.Tool.InputSchema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		v.params[t.Tool.Name] = names
	}
	return v, nil
}

// middleware returns the validating tool-handler middleware.
func (v *argValidator) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		schema, ok := v.schemas[req.Params.Name]
		if !ok {
			return next(ctx, req)
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
		return fmt.Sprintf("unknown argument %s (%s takes: %s)", quoteAll(k.Properties), tool, strings.Join(v.params[tool], ", "))
	case *kind.Type:
		if len(e.InstanceLocation) == 0 {
			return "arguments must be a JSON object"
		}
	}
	where := strings.Join(e.InstanceLocation, ".")
	return fmt.Sprintf("argument %q: %s", where, e.ErrorKind.LocalizedString(v.printer))
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
