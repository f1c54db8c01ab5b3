// Package e2e holds vaultmcp's end-to-end tests. They build the real
// binary once per test run and talk to it over stdio the way MCP clients
// do: through mcp-go's client, through a raw JSON-RPC line client (for
// bytes no well-behaved client would send) and through the official
// TypeScript SDK. Nothing here imports the server's packages: the tests
// see only what a client sees, plus the vault's files on disk.
//
// The helpers for new e2e tests live in harness_test.go (building,
// vaults, sessions, snapshots) and raw_test.go (the raw client).
package e2e
