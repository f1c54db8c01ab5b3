package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// listedTools returns the tools as the server registers them: each input
// schema encoded once, here, as RawInputSchema, with the
// additionalProperties:false that WithStrictInputSchemaDefault would add
// (it leaves raw schemas alone), and the encoding by tool name for the
// argument check. The definitions never change while the server runs,
// and mcp-go encodes a structured schema again at every tools/list
// through nested maps, a third of the allocations of the answer; the
// encoded bytes are written as they are.
func listedTools(all []server.ServerTool) ([]server.ServerTool, map[string]json.RawMessage, error) {
	listed := make([]server.ServerTool, len(all))
	encoded := make(map[string]json.RawMessage, len(all))
	for i, t := range all {
		if len(t.Tool.RawInputSchema) == 0 {
			in := t.Tool.InputSchema
			if in.AdditionalProperties == nil {
				in.AdditionalProperties = false
			}
			raw, err := json.Marshal(in)
			if err != nil {
				return nil, nil, fmt.Errorf("tool %s: encode input schema: %w", t.Tool.Name, err)
			}
			t.Tool.RawInputSchema = raw
			t.Tool.InputSchema = mcp.ToolInputSchema{}
		}
		listed[i] = t
		encoded[t.Tool.Name] = t.Tool.RawInputSchema
	}
	return listed, encoded, nil
}
