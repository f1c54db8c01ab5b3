package mcpwire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ListedTools returns the tools as the server registers them: each input
// schema encoded, as RawInputSchema, with the additionalProperties:false
// that WithStrictInputSchemaDefault would add (it leaves raw schemas
// alone), and the encoding by tool name for the argument check. The
// definitions never change while the server runs, and mcp-go encodes a
// structured schema again at every tools/list through nested maps, a
// third of the allocations of the answer; the encoded bytes are written
// as they are. The encodings are made ahead of time (inputSchemas,
// inputschemas_gen.go): encoding them at start was a third of assembling
// the server. A tool missing from the table (a new tool before the table
// is regenerated) is encoded here, and TestInputSchemas fails until `make
// generate` adds it; TestToolListAsMCPGo fails on a stale entry.
func ListedTools(all []server.ServerTool) ([]server.ServerTool, map[string]json.RawMessage, error) {
	listed := make([]server.ServerTool, len(all))
	encoded := make(map[string]json.RawMessage, len(all))
	for i, t := range all {
		if len(t.Tool.RawInputSchema) == 0 {
			raw, ok := generatedInputSchema(t.Tool.Name)
			if !ok {
				var err error
				if raw, err = encodeInputSchema(t.Tool); err != nil {
					return nil, nil, err
				}
			}
			t.Tool.RawInputSchema = raw
			t.Tool.InputSchema = mcp.ToolInputSchema{}
		}
		listed[i] = t
		encoded[t.Tool.Name] = t.Tool.RawInputSchema
	}
	return listed, encoded, nil
}

// encodeInputSchema encodes a tool's structured input schema as it is
// listed: strict unless it says otherwise.
func encodeInputSchema(t mcp.Tool) (json.RawMessage, error) {
	in := t.InputSchema
	if in.AdditionalProperties == nil {
		in.AdditionalProperties = false
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("tool %s: encode input schema: %w", t.Name, err)
	}
	return raw, nil
}

// generatedInputSchema is the tool's entry in inputSchemas (sorted by
// name).
func generatedInputSchema(name string) (json.RawMessage, bool) {
	i, ok := slices.BinarySearchFunc(inputSchemas[:], name, func(e inputSchemaEntry, name string) int {
		return strings.Compare(e.name, name)
	})
	if !ok {
		return nil, false
	}
	return json.RawMessage(inputSchemas[i].schema), true
}

// inputSchemaEntry is one tool's input schema, encoded.
type inputSchemaEntry struct{ name, schema string }
