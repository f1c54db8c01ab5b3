// vaultmcp's prompts, completion, resources, subscriptions and logging
// through the official MCP TypeScript SDK client.
//
// Usage: node guidance.mjs <vaultmcp binary> <vault folder> <scratch folder>
//
// Spawns `vaultmcp serve --vault <folder>` over stdio and checks the
// capabilities, the prompts (list, get, a missing argument), argument
// completion, resources/list across pages, resources/read of a note and of
// an image, and a subscription: this process (not the server) edits the
// subscribed note on disk and waits for notifications/resources/updated;
// a note written through the server brings notifications/resources/
// list_changed; after unsubscribing, edits are no longer announced.
// The scratch folder (outside the vault) holds the editor's temporary file.
// Prints a JSON report on stdout and exits 0, or prints what failed on
// stderr and exits 1. e2e/guidance_test.go runs it from `go test ./e2e`.

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  EmptyResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

class CheckError extends Error {}

function check(cond, message) {
  if (!cond) throw new CheckError(message);
}

const [bin, vault, scratch] = process.argv.slice(2);
if (!bin || !vault || !scratch) {
  console.error("usage: node guidance.mjs <vaultmcp binary> <vault folder> <scratch folder>");
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

const client = new Client({ name: "vaultmcp-e2e-ts-guidance", version: "1.0.0" });
const report = { ok: false, prompts: [], completions: {}, resources: 0, pages: 0, notifications: [], steps: [] };

// Resource notifications, in the order they arrive.
const queue = [];
let wake = null;
function push(note) {
  report.notifications.push(note);
  queue.push(note);
  if (wake) wake();
}
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => push(`updated ${n.params.uri}`));
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => push("list_changed"));
client.setNotificationHandler(LoggingMessageNotificationSchema, () => {});

// next waits for the next resource notification; the deadline only guards
// against a hang.
async function next() {
  const deadline = Date.now() + 60_000;
  while (queue.length === 0) {
    check(Date.now() < deadline, `no notification (got so far: ${JSON.stringify(report.notifications)})`);
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, 1000);
    });
    wake = null;
  }
  return queue.shift();
}

async function expectNext(want) {
  const got = await next();
  check(got === want, `notification ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  report.steps.push(`heard ${got}`);
}

// editElsewhere saves a note as an editor does: the new text goes to a
// temporary file, which is then moved over the note.
function editElsewhere(rel, content) {
  const tmp = join(scratch, "editor-save.tmp");
  writeFileSync(tmp, content);
  renameSync(tmp, join(vault, rel));
  report.steps.push(`edited ${rel} in the client's process`);
}

async function rejects(what, promise, code, want) {
  try {
    await promise;
  } catch (err) {
    check(err instanceof McpError, `${what}: not an MCP error: ${err}`);
    if (code !== undefined) check(err.code === code, `${what}: error code ${err.code}, want ${code}`);
    check(err.message.includes(want), `${what}: ${JSON.stringify(err.message)} should mention ${JSON.stringify(want)}`);
    report.steps.push(`${what}: ${err.message}`);
    return;
  }
  throw new CheckError(`${what}: succeeded, want an error`);
}

async function toolText(name, args) {
  const res = await client.callTool({ name, arguments: args });
  check(res.isError !== true, `${name} failed: ${JSON.stringify(res.content)}`);
  return res.content.map((c) => c.text).join("\n");
}

async function main() {
  await client.connect(transport);
  const caps = client.getServerCapabilities();
  check(caps?.prompts, "no prompts capability");
  check(caps?.completions, "no completions capability");
  check(caps?.logging, "no logging capability");
  check(caps?.resources?.subscribe === true && caps?.resources?.listChanged === true, `resources capability: ${JSON.stringify(caps?.resources)}`);

  // Prompts.
  const { prompts } = await client.listPrompts();
  report.prompts = prompts.map((p) => p.name);
  check(
    JSON.stringify(report.prompts) === JSON.stringify(["obsidian-conventions", "obsidian-create-note", "obsidian-search-strategy"]),
    `prompts/list: ${report.prompts}`,
  );
  for (const p of prompts) check(p.description, `${p.name}: no description`);
  const createNote = prompts.find((p) => p.name === "obsidian-create-note");
  check(createNote.arguments.find((a) => a.name === "topic")?.required === true, "topic is not required");
  const got = await client.getPrompt({ name: "obsidian-create-note", arguments: { topic: "Weekly review", note_type: "daily" } });
  const text = got.messages[0].content.text;
  check(got.messages[0].role === "user" && text.includes("about: Weekly review") && text.includes("# New note: daily"), `create-note: ${text}`);
  const conventions = await client.getPrompt({ name: "obsidian-conventions" });
  check(conventions.messages[0].content.text.startsWith("# Vault conventions"), "conventions prompt");
  await rejects("create-note without topic", client.getPrompt({ name: "obsidian-create-note", arguments: {} }), undefined, 'missing required argument "topic"');

  // Completion.
  const complete = async (ref, name, value) => (await client.complete({ ref, argument: { name, value } })).completion.values;
  const promptRef = { type: "ref/prompt", name: "obsidian-create-note" };
  report.completions.note_type = await complete(promptRef, "note_type", "d");
  check(JSON.stringify(report.completions.note_type) === '["daily"]', `note_type: ${report.completions.note_type}`);
  report.completions.folder = await complete(promptRef, "folder", "not");
  check(JSON.stringify(report.completions.folder) === '["notes"]', `folder: ${report.completions.folder}`);
  report.completions.path = await complete({ type: "ref/resource", uri: "vault:///{+path}" }, "path", "watch");
  check(JSON.stringify(report.completions.path) === '["notes/watched.md"]', `path: ${report.completions.path}`);
  report.completions.unknown = await complete({ type: "ref/prompt", name: "test_prompt_with_arguments" }, "arg1", "test");
  check(Array.isArray(report.completions.unknown) && report.completions.unknown.length === 0, "unknown prompt completion not empty");

  // Resources: every page, then reads.
  const seen = new Set();
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    report.pages++;
    for (const r of page.resources) {
      check(r.uri && r.name, `resource without uri or name: ${JSON.stringify(r)}`);
      check(!seen.has(r.uri), `listed twice: ${r.uri}`);
      seen.add(r.uri);
    }
    cursor = page.nextCursor;
  } while (cursor);
  report.resources = seen.size;
  check(seen.has("vault:///notes/watched.md") && seen.has("vault:///attachments/pic.png"), "resources/list lacks the fixtures");
  const { resourceTemplates } = await client.listResourceTemplates();
  check(resourceTemplates.some((t) => t.uriTemplate === "vault:///{+path}"), "no vault:///{+path} template");
  const note = await client.readResource({ uri: "vault:///notes/watched.md" });
  check(note.contents[0].mimeType === "text/markdown" && note.contents[0].text === "v1\n", `note: ${JSON.stringify(note.contents)}`);
  const pic = await client.readResource({ uri: "vault:///attachments/pic.png" });
  check(pic.contents[0].mimeType === "image/png" && Buffer.from(pic.contents[0].blob, "base64").equals(readFileSync(join(vault, "attachments/pic.png"))), "image blob");
  await rejects("read a missing note", client.readResource({ uri: "vault:///notes/missing.md" }), undefined, "not found");

  // Logging: a level is accepted, a bad one refused as invalid params.
  await client.setLoggingLevel("warning");
  await rejects("setLevel banana", client.request({ method: "logging/setLevel", params: { level: "banana" } }, EmptyResultSchema), -32602, "banana");

  // Subscriptions.
  await client.subscribeResource({ uri: "vault:///notes/watched.md" });
  editElsewhere("notes/watched.md", "v2 from another process\n");
  await expectNext("updated vault:///notes/watched.md");
  const after = await client.readResource({ uri: "vault:///notes/watched.md" });
  check(after.contents[0].text === "v2 from another process\n", `after the edit: ${after.contents[0].text}`);

  await toolText("edit_file", { path: "notes/watched.md", old_text: "v2", new_text: "v3" });
  await expectNext("updated vault:///notes/watched.md");

  await toolText("write_file", { path: "notes/new.md", content: "new\n" });
  await expectNext("list_changed");

  await client.unsubscribeResource({ uri: "vault:///notes/watched.md" });
  editElsewhere("notes/watched.md", "v4, nobody listening\n");
  await toolText("delete_file", { path: "notes/new.md" });
  await expectNext("list_changed");

  // The guidance tools, for completeness of the round trip.
  const context = await toolText("get_claude_context", { path: "notes" });
  check(context === "--- CLAUDE.md in notes/ ---\n# Notes rules", `get_claude_context: ${context}`);
  report.ok = true;
}

try {
  await main();
  await client.close();
  report.serverLog = serverLog; // for the Go side to check for races and panics
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  process.exit(0);
} catch (err) {
  const what = err instanceof CheckError ? "check failed" : "client error";
  console.error(`ts guidance client: ${what}: ${err?.stack ?? err}`);
  console.error(`report so far: ${JSON.stringify(report)}`);
  if (serverLog) console.error(`server log:\n${serverLog}`);
  try {
    await client.close();
  } catch {
    // already broken
  }
  process.exit(1);
}
