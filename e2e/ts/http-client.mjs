// vaultmcp over streamable HTTP through the official MCP TypeScript SDK.
//
// Usage: node http-client.mjs <base URL> <token> [notify-file]
//
// Connects to <base URL>/mcp with StreamableHTTPClientTransport and a
// bearer token, writes a note, and checks that its commit shows in
// get_recent_changes. With notify-file, it also listens for
// notifications on the session's SSE stream (opened by the transport
// after initialize): it subscribes to the note's resource, tells the Go
// test (by writing notify-file) that it is listening, and waits for the
// server's notification about the change the test makes. Prints a JSON
// report on stdout and exits 0, or prints what failed on stderr and exits
// 1. e2e/http_test.go runs it.

import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

class CheckError extends Error {}

function check(cond, message) {
  if (!cond) throw new CheckError(message);
}

const [base, token, notifyFile] = process.argv.slice(2);
if (!base || !token) {
  console.error("usage: node http-client.mjs <base URL> <token> [notify-file]");
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL(base + "/mcp"), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "vaultmcp-e2e-ts-http", version: "1.0.0" });
const report = { ok: false, sessionId: null, write: null, recent: null, notification: null };

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  return { text, isError: res.isError === true };
}

try {
  await client.connect(transport);
  report.sessionId = transport.sessionId ?? null;
  check(report.sessionId, "the server gave no Mcp-Session-Id");

  const w = await call("write_file", { path: "ts-http/note.md", content: "# Written over HTTP by the TypeScript SDK\n" });
  check(!w.isError, `write_file failed: ${w.text}`);
  const commit = /commit ([0-9a-f]{7,})/.exec(w.text);
  check(commit, `write_file names no commit: ${w.text}`);
  report.write = w.text;

  const r = await call("get_recent_changes", {});
  check(!r.isError, `get_recent_changes failed: ${r.text}`);
  check(r.text.includes("MCP: write ts-http/note.md"), `get_recent_changes lacks the write:\n${r.text}`);
  report.recent = r.text;

  if (notifyFile) {
    const got = new Promise((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => resolve(n));
    });
    await client.subscribeResource({ uri: process.env.VAULTMCP_NOTIFY_URI });
    writeFileSync(notifyFile, "listening\n");
    const n = await got;
    report.notification = n;
  }

  await transport.terminateSession();
  await client.close();
  report.ok = true;
  process.stdout.write(JSON.stringify(report) + "\n");
} catch (err) {
  console.error(err instanceof CheckError ? err.message : err?.stack ?? String(err));
  process.stdout.write(JSON.stringify(report) + "\n");
  process.exit(1);
}
