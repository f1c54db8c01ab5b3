// How soon the official MCP TypeScript SDK client is served by a freshly
// started vaultmcp: spawn + initialize (the SDK's connect), then
// tools/list right after it, over stdio. tools/list is timed twice: as
// a plain request (the answer, parsed by the SDK's result schema), then as
// client.listTools(), which also compiles a validator (Ajv) for every
// tool's output schema in the client before it returns.
//
// Usage: node startup.mjs <vaultmcp binary> <vault folder> [runs]
//
// Prints {"initialize_ms": [...], "tools_list_ms": [...],
// "list_tools_call_ms": [...]} (one entry per
// run, each run a new server process) on stdout. cmd/vaultbench's startup
// section runs it beside mcp-go's client.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, vault, runsArg] = process.argv.slice(2);
if (!bin || !vault) {
  console.error("usage: node startup.mjs <vaultmcp binary> <vault folder> [runs]");
  process.exit(2);
}
const runs = Number(runsArg ?? 5);
const report = { initialize_ms: [], tools_list_ms: [], list_tools_call_ms: [] };

for (let i = 0; i < runs; i++) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["serve", "--vault", vault],
    env: { ...process.env, VAULTMCP_LOG_LEVEL: "warn" },
    stderr: "ignore",
  });
  const client = new Client({ name: "vaultbench-ts", version: "1.0.0" });
  const start = performance.now();
  await client.connect(transport); // spawns, then initialize and initialized
  report.initialize_ms.push(performance.now() - start);
  let t = performance.now();
  const { tools } = await client.request({ method: "tools/list" }, ListToolsResultSchema);
  report.tools_list_ms.push(performance.now() - t);
  t = performance.now();
  await client.listTools();
  report.list_tools_call_ms.push(performance.now() - t);
  if (tools.length < 20) {
    console.error(`tools/list listed ${tools.length} tools`);
    process.exit(1);
  }
  await client.close();
}
console.log(JSON.stringify(report));
