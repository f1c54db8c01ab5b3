// vaultmcp end to end through the official MCP TypeScript SDK client.
//
// Usage: node client.mjs <vaultmcp binary> <vault folder>
//
// Spawns `vaultmcp serve --vault <folder>` over stdio with the SDK's
// StdioClientTransport and checks initialize (instructions), tools/list
// (the seven file tools, all four annotations set), a full round trip
// of every file tool plus error cases, and paged link and tag answers,
// whose structured content the SDK checks against each outputSchema. Prints a JSON report on stdout and
// exits 0, or prints what failed on stderr and exits 1. e2e/tsclient_test.go
// runs it from `go test ./e2e`.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const FILE_TOOLS = [
  "read_file",
  "write_file",
  "edit_file",
  "delete_file",
  "rename_file",
  "list_directory",
  "create_directory",
];
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

class CheckError extends Error {}

function check(cond, message) {
  if (!cond) throw new CheckError(message);
}

const [bin, vault] = process.argv.slice(2);
if (!bin || !vault) {
  console.error("usage: node client.mjs <vaultmcp binary> <vault folder>");
  process.exit(2);
}

const transport = new StdioClientTransport({
  command: bin,
  args: ["serve", "--vault", vault],
  env: { ...process.env },
  stderr: "pipe",
});
let serverLog = "";
transport.stderr?.on("data", (chunk) => {
  serverLog += chunk.toString();
});

const client = new Client({ name: "vaultmcp-e2e-ts", version: "1.0.0" });
const report = { ok: false, serverInfo: null, instructions: null, tools: [], steps: [] };

// call invokes a tool and returns its text and error flag.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  // A note's version (and a notice) comes as a text block of its own
  // after the answer; the checks below are about the answer.
  const text = (res.content ?? [])
    .filter((c) => c.type === "text" && !c.text.startsWith("version: ") && !c.text.startsWith("notice: "))
    .map((c) => c.text)
    .join("\n");
  return { text, isError: res.isError === true };
}

// ok calls a tool that must succeed.
async function ok(name, args) {
  const r = await call(name, args);
  check(!r.isError, `${name} ${JSON.stringify(args)} failed: ${r.text}`);
  report.steps.push({ tool: name, args, text: r.text });
  return r.text;
}

// fails calls a tool that must fail with {"error": "..."} mentioning want.
async function fails(name, args, want) {
  const r = await call(name, args);
  check(r.isError, `${name} ${JSON.stringify(args)} should fail, got: ${r.text}`);
  let body;
  try {
    body = JSON.parse(r.text);
  } catch {
    throw new CheckError(`${name} error is not JSON: ${r.text}`);
  }
  check(typeof body.error === "string" && body.error.length > 0, `${name} error has no message: ${r.text}`);
  check(
    body.error.toLowerCase().includes(want.toLowerCase()),
    `${name} error ${JSON.stringify(body.error)} should mention ${JSON.stringify(want)}`,
  );
  report.steps.push({ tool: name, args, error: body.error });
  return body.error;
}

async function main() {
  await client.connect(transport);
  report.serverInfo = client.getServerVersion();
  report.instructions = client.getInstructions() ?? null;
  check(report.serverInfo?.name === "vaultmcp", `serverInfo.name = ${report.serverInfo?.name}`);
  check(typeof report.instructions === "string" && report.instructions.trim() !== "", "no instructions at initialize");

  const { tools } = await client.listTools();
  report.tools = tools.map((t) => ({ name: t.name, annotations: t.annotations }));
  for (const name of FILE_TOOLS) {
    const tool = tools.find((t) => t.name === name);
    check(tool, `tools/list lacks ${name}`);
    for (const hint of HINTS) {
      check(typeof tool.annotations?.[hint] === "boolean", `${name}: annotations.${hint} not set`);
    }
    check(tool.inputSchema?.additionalProperties === false, `${name}: inputSchema.additionalProperties is not false`);
  }

  // Round trip through every file tool.
  const note = "ts/round.md";
  await ok("write_file", { path: note, content: "hello\nworld\n" });
  check((await ok("read_file", { path: note })) === "hello\nworld\n", "read after write differs");
  await ok("edit_file", { path: note, old_text: "world", new_text: "there" });
  check((await ok("read_file", { path: note })) === "hello\nthere\n", "read after edit differs");
  const listing = await ok("list_directory", { path: "ts" });
  check(listing.includes("[file] ts/round.md"), `listing lacks the note: ${listing}`);
  await ok("create_directory", { path: "ts/sub" });
  await ok("rename_file", { old_path: note, new_path: "ts/sub/renamed.md" });
  check((await ok("read_file", { path: "ts/sub/renamed.md" })) === "hello\nthere\n", "read after rename differs");
  const deep = await ok("list_directory", { path: "ts", recursive: true });
  check(deep.includes("[directory] ts/sub/") && deep.includes("[file] ts/sub/renamed.md"), `recursive listing: ${deep}`);
  await ok("delete_file", { path: "ts/sub/renamed.md" });
  await ok("write_file", { path: "ts/kept.md", content: "kept\n" });

  // Error cases.
  await fails("read_file", { path: "../outside.md" }, "outside the vault");
  await fails("read_file", { path: "ts/sub/renamed.md" }, "not found");
  await fails("edit_file", { path: "ts/kept.md", old_text: "absent", new_text: "x" }, "not found");
  await fails("write_file", { path: ".git/config", content: "x" }, "hidden");
  await fails("write_file", { path: "ts/x.md" }, "content");

  // Paged answers. The SDK checks every structured answer against the
  // tool's outputSchema, which the server itself only does in tests.
  await ok("write_file", { path: "ts/Hub.md", content: "# Hub\n" });
  for (let i = 1; i <= 5; i++) {
    await ok("write_file", { path: `ts/links/n${i}.md`, content: `# ${i}\nSee [[Hub]] and [[Gone ${i}]]. #ts${i}\n` });
  }
  const files = [];
  let offset = 0;
  for (let pages = 0; pages < 10; pages++) {
    const res = await client.callTool({ name: "get_backlinks", arguments: { note_name: "Hub", limit: 2, offset } });
    check(!res.isError, `get_backlinks page at ${offset}: ${JSON.stringify(res.content)}`);
    const sc = res.structuredContent;
    check(sc.backlink_count === 5 && sc.path === "ts/Hub.md", `get_backlinks page at ${offset}: ${JSON.stringify(sc)}`);
    check(sc.backlinks.every((b) => b.lines[0] === 2 && b.links[0] === "Hub"), `backlinks lack their line: ${JSON.stringify(sc.backlinks)}`);
    files.push(...sc.backlinks.map((b) => b.file));
    report.steps.push({ tool: "get_backlinks", args: { offset } });
    if (sc.next_offset === undefined) break;
    offset = sc.next_offset;
  }
  check(files.join(",") === [1, 2, 3, 4, 5].map((i) => `ts/links/n${i}.md`).join(","), `backlinks paged: ${files}`);
  const broken = await client.callTool({ name: "get_broken_links", arguments: { limit: 2, offset: 4 } });
  // Six notes: the five, and CLAUDE.md's [[wikilinks]].
  check(broken.structuredContent?.files_with_broken_links === 6 && broken.structuredContent.broken_links.length === 2 &&
    broken.structuredContent.next_offset === undefined, `get_broken_links last page: ${JSON.stringify(broken.structuredContent)}`);
  const tags = await client.callTool({ name: "get_tags", arguments: { limit: 1 } });
  check(tags.structuredContent?.total >= 5 && tags.structuredContent.next_offset === 1, `get_tags: ${JSON.stringify(tags.structuredContent)}`);
  const links = await client.callTool({ name: "find_links", arguments: { path: "ts/Hub.md", limit: 3 } });
  check(links.structuredContent?.backlinks?.total === 5 && links.structuredContent.backlinks.next_offset === 3, `find_links: ${JSON.stringify(links.structuredContent)}`);
  const missing = await fails("read_file", { path: "Hub.md" }, "did you mean ts/Hub.md?");
  check(missing.includes("ts/Hub.md"), missing);
  // A name off only in case is read as the one file it names, saying so.
  const taken = await client.callTool({ name: "read_file", arguments: { path: "ts/hub.md", limit: 1 } });
  check(!taken.isError && taken.content[0].text.startsWith("(ts/hub.md is taken as ts/Hub.md,"), `read_file ts/hub.md: ${JSON.stringify(taken)}`);

  report.ok = true;
}

try {
  await main();
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  await client.close();
  process.exit(0);
} catch (err) {
  const what = err instanceof CheckError ? "check failed" : "client error";
  console.error(`ts client: ${what}: ${err?.stack ?? err}`);
  if (serverLog) console.error(`server log:\n${serverLog}`);
  try {
    await client.close();
  } catch {
    // already broken
  }
  process.exit(1);
}
