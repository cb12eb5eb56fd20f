// An ACP client on the official TypeScript library, driving `tandem acp`
// through the scenario the Go test names. It prints one JSON object: what
// it saw (updates, permission questions, responses, errors).
//
// env: ACP_SDK (path of the library's entry module), TANDEM_BIN, WORK,
// SCENARIO ("edit-deny-cancel" or "load"), SESSION_ID (for "load"),
// MCP_BIN (a stdio MCP server the client brings to session/new).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const acp = await import(pathToFileURL(process.env.ACP_SDK).href);
const { client, methods, ndJsonStream } = acp;

const log = { updates: [], asks: [], responses: {}, errors: [] };
const child = spawn(process.env.TANDEM_BIN, ["acp"], { cwd: process.env.WORK, env: process.env, stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

let onToolRunning = null;
const app = client({ name: "tandem-acp-test" })
  .onNotification(methods.client.session.update, async (c) => {
    const u = c.params.update;
    log.updates.push(u);
    if (onToolRunning && u.sessionUpdate === "tool_call" && /sleep/.test(u.title ?? "")) {
      const f = onToolRunning;
      onToolRunning = null;
      f(u);
    }
  })
  .onRequest(methods.client.session.requestPermission, async (c) => {
    const p = c.params;
    log.asks.push({ title: p.toolCall.title, options: p.options.map((o) => o.optionId) });
    const reject = /rm -rf/.test(p.toolCall.title ?? "");
    return { outcome: { outcome: "selected", optionId: reject ? "reject" : "allow_once" } };
  });

const timeout = setTimeout(() => { log.errors.push("timed out"); finish(1); }, 100000);
function finish(code) {
  clearTimeout(timeout);
  console.log(JSON.stringify(log));
  child.kill("SIGTERM");
  process.exit(code);
}

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: "tandem-acp-test", version: "1.0.0" },
    });
    log.responses.initialize = init;
    const cwd = process.env.WORK;
    if (process.env.SCENARIO === "load") {
      const list = await ctx.request(methods.agent.session.list, { cwd });
      log.responses.list = list;
      log.responses.load = await ctx.request(methods.agent.session.load, { sessionId: process.env.SESSION_ID, cwd, mcpServers: [] });
      const mode = await ctx.request(methods.agent.session.setMode, { sessionId: process.env.SESSION_ID, modeId: "explore" });
      log.responses.setMode = mode;
      return;
    }
    const mcpServers = process.env.MCP_BIN ? [{ name: "everything", command: process.env.MCP_BIN, args: [], env: [] }] : [];
    const s = await ctx.request(methods.agent.session.new, { cwd, mcpServers });
    log.responses.new = s;
    const sessionId = s.sessionId;
    log.responses.edit = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "fix the greeting" }] });
    log.responses.deny = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "clean the build folder" }] });
    const running = new Promise((resolve) => { onToolRunning = resolve; });
    const long = ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "wait a while" }] });
    await running;
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    await ctx.notify(methods.agent.session.cancel, { sessionId });
    log.responses.cancel = await long;
    log.responses.cancelMillis = Date.now() - t0;
  });
} catch (e) {
  log.errors.push(String(e?.stack ?? e));
  finish(1);
}
finish(0);
