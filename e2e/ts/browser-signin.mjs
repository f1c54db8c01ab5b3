// A Claude-style connector signing in to vaultmcp: the official MCP
// TypeScript SDK's OAuth client does discovery, registration (dynamic, or
// by a client metadata document), PKCE, the token exchange and refresh;
// the person's part, the sign-in page, is played in a real headless
// Chromium driven by puppeteer-core.
//
// Usage: node browser-signin.mjs <phase>, configured by environment:
//   MCP_URL            the server's /mcp URL
//   CLIENT_STATE       a JSON file keeping the client's registration,
//                      tokens and PKCE verifier between phases
//   phase "signin":    sign in from nothing (CALLBACK_URL, USERNAME,
//                      PASSWORD, ACCESS=write|read, optionally
//                      CLIENT_METADATA_URL, WRONG_PASSWORD_FIRST=1,
//                      SCREENSHOT_DIR, CHROMIUM), then call tools
//   phase "use":       call tools with the saved access token only
//   phase "refresh":   refresh the tokens, then call tools
// Prints a JSON report on stdout; exits 1 with the reason on stderr when
// a check fails. e2e/oauth_browser_test.go runs it.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const env = process.env;
const phase = process.argv[2];
const report = { phase, ok: false };

class CheckError extends Error {}
function check(cond, message) {
  if (!cond) throw new CheckError(message);
}

// The client's saved state, as a connector keeps it between sessions.
const saved = existsSync(env.CLIENT_STATE) ? JSON.parse(readFileSync(env.CLIENT_STATE, "utf8")) : {};
const persist = () => writeFileSync(env.CLIENT_STATE, JSON.stringify(saved, null, 2));

let browser = null;
let callback = null; // the redirect's query, once the browser lands there

const provider = {
  get redirectUrl() {
    return env.CALLBACK_URL ?? saved.redirectUrl;
  },
  clientMetadataUrl: env.CLIENT_METADATA_URL || undefined,
  get clientMetadata() {
    return {
      client_name: "vaultmcp browser e2e (dynamic registration)",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    };
  },
  state() {
    saved.state = Math.random().toString(36).slice(2);
    return saved.state;
  },
  clientInformation() {
    return saved.client;
  },
  saveClientInformation(info) {
    saved.client = info;
  },
  tokens() {
    return saved.tokens;
  },
  saveTokens(tokens) {
    saved.tokens = tokens;
  },
  saveCodeVerifier(v) {
    saved.verifier = v;
  },
  codeVerifier() {
    return saved.verifier;
  },
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "client") delete saved.client;
    if (scope === "all" || scope === "tokens") delete saved.tokens;
    if (scope === "all" || scope === "verifier") delete saved.verifier;
  },
  async redirectToAuthorization(url) {
    if (phase !== "signin") {
      // The tokens held no longer work: a connector would ask its user
      // to sign in again.
      report.signInAsked = url.toString();
      throw new UnauthorizedError("the server asks to sign in again");
    }
    await signInInBrowser(url);
  },
};

// signInInBrowser is the person: the page, typed into and submitted.
async function signInInBrowser(url) {
  report.authorizationUrl = url.toString();
  browser = await puppeteer.launch({
    executablePath: env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-dev-shm-usage",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  const page = await browser.newPage();
  const started = Date.now();
  try {
    const first = await page.goto(url.toString(), { waitUntil: "domcontentloaded" });
    check(first.status() === 200, `the sign-in page answered ${first.status()}: ${await first.text()}`);
    report.pageText = await page.$eval("body", (b) => b.innerText);
    report.pageHeaders = first.headers();
    if (env.WRONG_PASSWORD_FIRST === "1") {
      await page.type("#username", env.USERNAME);
      await page.type("#password", "not the password");
      const [again] = await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("#allow")]);
      check(again.status() === 200, `a wrong password answered ${again.status()}`);
      report.wrongPasswordText = await page.$eval("body", (b) => b.innerText);
      await page.$eval("#username", (e) => (e.value = ""));
    }
    await page.type("#username", env.USERNAME);
    await page.type("#password", env.PASSWORD);
    const choice = env.ACCESS === "read" ? "#access-read" : "#access-write";
    if (await page.$(choice)) {
      await page.click(choice);
    }
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("#allow")]);
    const landed = new URL(page.url());
    check(landed.href.startsWith(provider.redirectUrl), `the browser landed on ${landed.href}, not the callback ${provider.redirectUrl}:\n${await page.content()}`);
    callback = Object.fromEntries(landed.searchParams);
    report.signInMillis = Date.now() - started;
  } catch (err) {
    if (env.SCREENSHOT_DIR) {
      await page.screenshot({ path: join(env.SCREENSHOT_DIR, `signin-${Date.now()}.png`), fullPage: true }).catch(() => {});
      writeFileSync(join(env.SCREENSHOT_DIR, `signin-${Date.now()}.html`), await page.content().catch(() => ""));
    }
    throw err;
  } finally {
    await browser.close();
  }
}

function newTransport() {
  return new StreamableHTTPClientTransport(new URL(env.MCP_URL), { authProvider: provider });
}

// useTools connects with the tokens held and calls tools as an agent
// would: the list, a read, and a write when the grant allows it.
async function useTools(label) {
  const transport = newTransport();
  const client = new Client({ name: "vaultmcp-browser-e2e", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (err) {
    if (err instanceof UnauthorizedError || /401|Unauthorized/.test(String(err))) {
      report[label] = { unauthorized: true, error: String(err) };
      return;
    }
    throw err;
  }
  const out = { protocol: transport.protocolVersion ?? null, sessionId: transport.sessionId ?? null };
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => t.name);
  const read = await client.callTool({ name: "read_file", arguments: { path: "Journal/day.md" } });
  out.read = read.content?.[0]?.text ?? "";
  out.readError = read.isError === true;
  if (out.tools.includes("write_file")) {
    const w = await client.callTool({ name: "write_file", arguments: { path: `connector/${label}.md`, content: `written by the connector (${label})\n` } });
    out.write = w.content?.[0]?.text ?? "";
    out.writeError = w.isError === true;
  }
  await transport.terminateSession().catch(() => {});
  await client.close();
  report[label] = out;
}

try {
  switch (phase) {
    case "signin": {
      saved.redirectUrl = env.CALLBACK_URL;
      const transport = newTransport();
      const client = new Client({ name: "vaultmcp-browser-e2e", version: "1.0.0" });
      let needed = false;
      try {
        await client.connect(transport);
      } catch (err) {
        check(err instanceof UnauthorizedError, `connecting without a token: ${err}`);
        needed = true;
      }
      check(needed, "the server let a client in without signing in");
      check(callback, "the browser never reached the callback");
      report.callback = { hasCode: !!callback.code, state: callback.state, iss: callback.iss, error: callback.error };
      check(callback.state === saved.state, `the callback's state ${callback.state} is not the one sent, ${saved.state}`);
      check(callback.code, `the callback has no code: ${JSON.stringify(callback)}`);
      await transport.finishAuth(callback.code);
      check(saved.tokens?.access_token, "the code exchange saved no access token");
      report.clientId = saved.client?.client_id;
      report.scope = saved.tokens.scope;
      report.refreshIssued = !!saved.tokens.refresh_token;
      await useTools("afterSignIn");
      break;
    }
    case "use":
      await useTools("use");
      break;
    case "refresh": {
      const before = saved.tokens?.refresh_token;
      const result = await auth(provider, { serverUrl: env.MCP_URL });
      report.refreshResult = result;
      check(result === "AUTHORIZED", `refresh answered ${result}`);
      check(saved.tokens.refresh_token && saved.tokens.refresh_token !== before, "the refresh token was not rotated");
      await useTools("afterRefresh");
      break;
    }
    default:
      throw new CheckError(`unknown phase ${phase}`);
  }
  report.accessToken = saved.tokens?.access_token;
  report.refreshToken = saved.tokens?.refresh_token;
  report.ok = true;
  persist();
  console.log(JSON.stringify(report));
} catch (err) {
  persist();
  console.log(JSON.stringify(report));
  console.error(err instanceof CheckError ? err.message : err.stack ?? String(err));
  process.exit(1);
}
