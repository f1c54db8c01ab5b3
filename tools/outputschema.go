package tools

import (
	"encoding/json"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
)

// outputSchema publishes the output schema of a tool whose structured
// answer is a T: what mcp.WithOutputSchema[T] builds, read from
// outputSchemas instead of built again by reflection. Building them all
// by reflection was most of assembling the server (about 80 % of
// mcpserver.New, several milliseconds of every start); the definitions
// never change while the binary runs, so they are built once, by
// TestOutputSchemas, and kept in outputschemas_gen.go.
//
// A T missing from the table (a new result type before the table is
// regenerated) still gets its schema, by reflection, and
// TestOutputSchemas fails until `go test ./tools -update` adds it.
func outputSchema[T any]() mcp.ToolOption {
	if raw, ok := outputSchemas[outputSchemaKey(reflect.TypeFor[T]())]; ok {
		return mcp.WithRawOutputSchema(json.RawMessage(raw))
	}
	return mcp.WithOutputSchema[T]()
}

// outputSchemaKey names a result type in the table: its package-qualified
// name (tools.TagsResult).
func outputSchemaKey(t reflect.Type) string { return t.String() }
