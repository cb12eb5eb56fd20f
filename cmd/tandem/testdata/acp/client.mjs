// An ACP client on the official TypeScript library, driving `tandem acp`
// through the scenario the Go test names. It prints one JSON object: what
// it saw (updates, permission questions, responses, errors).
//
// env: ACP_SDK (path of the library's entry module), TANDEM_BIN, WORK,
// SCENARIO ("edit-deny-cancel", "load", "plan", "client-fs-terminal" or
// "client-big-read": one prompt with the client's files), SESSION_ID
// (for "load"), MCP_BIN (a stdio MCP server the client brings to
// session/new), BUFFER_PATH and BUFFER_TEXT (for "client-fs-terminal": an
// unsaved editor buffer that differs from the file on disk; BUFFER_LINES
// makes it that many copies of BUFFER_TEXT).
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const acp = await import(pathToFileURL(process.env.ACP_SDK).href);
const { client, methods, ndJsonStream } = acp;

const log = { updates: [], asks: [], responses: {}, errors: [], reads: [], writes: [], terminal: [] };
const clientSide = process.env.SCENARIO?.startsWith("client-");
// The editor's buffers: what it shows, saved or not.
const buffers = new Map();
if (process.env.BUFFER_PATH) buffers.set(process.env.BUFFER_PATH, process.env.BUFFER_TEXT.repeat(Number(process.env.BUFFER_LINES ?? 1)));
// The editor's terminals, each a real process group.
const terminals = new Map();
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
    log.asks.push({ title: p.toolCall.title, options: p.options.map((o) => o.optionId), content: JSON.stringify(p.toolCall.content ?? []) });
    if (process.env.SCENARIO === "plan") {
      // The model's question: its second option; the first plan is sent
      // back, the second approved with "accept edits".
      const ids = p.options.map((o) => o.optionId);
      if (ids.includes("option_1")) return { outcome: { outcome: "selected", optionId: "option_1" } };
      const plans = log.asks.filter((a) => a.options.includes("plan_accept_edits")).length;
      return { outcome: { outcome: "selected", optionId: plans === 1 ? "reject" : "plan_accept_edits" } };
    }
    const reject = /rm -rf/.test(p.toolCall.title ?? "");
    return { outcome: { outcome: "selected", optionId: reject ? "reject" : "allow_once" } };
  })
  .onRequest(methods.client.fs.readTextFile, async (c) => {
    const p = c.params;
    log.reads.push(p.path);
    return { content: buffers.has(p.path) ? buffers.get(p.path) : readFileSync(p.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, async (c) => {
    const p = c.params;
    log.writes.push({ path: p.path, content: p.content });
    buffers.set(p.path, p.content);
    writeFileSync(p.path, p.content); // the editor saves the buffer
    return {};
  })
  .onRequest(methods.client.terminal.create, async (c) => {
    const p = c.params;
    const env = { ...process.env };
    for (const v of p.env ?? []) env[v.name] = v.value;
    const proc = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? undefined, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const t = { proc, output: "", exit: null };
    t.closed = new Promise((resolve) => proc.on("close", (code, signal) => { t.exit = { exitCode: code, signal }; resolve(t.exit); }));
    proc.stdout.on("data", (d) => { t.output += d; });
    proc.stderr.on("data", (d) => { t.output += d; });
    const terminalId = "term-" + (terminals.size + 1);
    terminals.set(terminalId, t);
    log.terminal.push({ method: "create", terminalId, command: p.command, args: p.args, cwd: p.cwd, env: p.env ?? [] });
    return { terminalId };
  })
  .onRequest(methods.client.terminal.output, async (c) => {
    const t = terminals.get(c.params.terminalId);
    log.terminal.push({ method: "output", terminalId: c.params.terminalId });
    return { output: t.output, truncated: false, exitStatus: t.exit ?? undefined };
  })
  .onRequest(methods.client.terminal.waitForExit, async (c) => {
    const t = terminals.get(c.params.terminalId);
    log.terminal.push({ method: "wait_for_exit", terminalId: c.params.terminalId });
    return await t.closed;
  })
  .onRequest(methods.client.terminal.kill, async (c) => {
    const t = terminals.get(c.params.terminalId);
    log.terminal.push({ method: "kill", terminalId: c.params.terminalId });
    try { process.kill(-t.proc.pid, "SIGKILL"); } catch {}
    return {};
  })
  .onRequest(methods.client.terminal.release, async (c) => {
    const t = terminals.get(c.params.terminalId);
    log.terminal.push({ method: "release", terminalId: c.params.terminalId });
    if (!t.exit) { try { process.kill(-t.proc.pid, "SIGKILL"); } catch {} }
    return {};
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
      clientCapabilities: { fs: { readTextFile: clientSide, writeTextFile: clientSide }, terminal: clientSide },
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
    if (process.env.SCENARIO === "plan") {
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: "explore" });
      log.responses.plan = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "plan the storage change" }] });
      return;
    }
    if (process.env.SCENARIO === "client-big-read") {
      log.responses.read = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the big files" }] });
      return;
    }
    if (clientSide) {
      log.responses.edit = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "use the editor" }] });
      const running = new Promise((resolve) => { onToolRunning = resolve; });
      const long = ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "wait a while" }] });
      await running;
      // The command is running in the terminal once it was created.
      while (!log.terminal.some((e) => e.method === "create" && /sleep/.test(e.args?.join(" ") ?? ""))) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      log.responses.cancel = await long;
      return;
    }
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
