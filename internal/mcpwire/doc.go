// Package mcpwire is where vaultmcp steps past mcp-go: everything that
// reads or writes MCP's bytes itself rather than through mcp-go's own
// code, kept in one place so that one differential test suite holds it to
// mcp-go byte for byte: `go test ./internal/mcpwire -run AsMCPGo`
// (differential_test.go over a small server, differential_tools_test.go
// over vaultmcp's own).
//
//   - ServeStdio wraps mcp-go's stdio server with a per-message size cap,
//     a drain of the requests received before the end of input, and fast
//     paths for tools/list and tools/call.
//   - ToolList is tools/list's result encoded once per view of the tools,
//     from per-tool encodings made ahead of time (toollistings_gen.go);
//     ListedTools gives the tools their input schemas encoded once
//     (inputschemas_gen.go). `make generate` rewrites both tables.
//   - ArgChecker checks a tool call's arguments against the tool's input
//     schema, in place of the general JSON Schema validator mcp-go
//     offers, with messages an agent can act on.
//   - SetErrorCode changes the JSON-RPC code of an error response mcp-go
//     is about to send, which mcp-go has no option for.
//   - Package answer encodes a tools/call answer once, as mcp-go would.
//   - jsonschemafork is a patched copy of a library mcp-go links in, whose
//     init would otherwise cost every start (see its README.vaultmcp.md).
//
// Everything else about the server (its tools, hooks and middlewares) is
// assembled in package mcpserver through mcp-go's ordinary API.
package mcpwire
