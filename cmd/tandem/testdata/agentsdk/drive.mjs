// Drives a Claude Code-compatible executable (the real `claude` CLI, or
// tandem) through the official Claude Agent SDK for TypeScript, and prints
// one JSON object with what happened, so a Go test can make the same
// assertions about both.
//
// env: AGENT_SDK (path of the SDK's sdk.mjs), EXE (the executable), WORK
// (the workspace), SCENARIO (edit | resume | interrupt | sdkmcp | agents |
// sources), RESUME (a session id, for resume), SETTING_SOURCES (JSON, for
// sources), MODEL.
import { pathToFileURL } from "node:url";

const { query, tool, createSdkMcpServer } = await import(pathToFileURL(process.env.AGENT_SDK).href);
const { z } = await import(new URL("../../zod/index.js", pathToFileURL(process.env.AGENT_SDK)).href);
const out = { messages: [], canUseTool: [], hooks: [], errors: [], stderr: "" };

function env() {
  const e = { ...process.env };
  delete e.AGENT_SDK;
  return e;
}

const base = {
  pathToClaudeCodeExecutable: process.env.EXE,
  cwd: process.env.WORK,
  env: env(),
  model: process.env.MODEL || "claude-sonnet-5-5",
  stderr: (s) => { out.stderr += s; },
};

async function collect(q, onMessage) {
  for await (const m of q) {
    out.messages.push(m);
    if (onMessage) await onMessage(m, q);
  }
}

const timer = setTimeout(() => { out.errors.push("timed out"); done(1); }, 100000);
function done(code) {
  clearTimeout(timer);
  console.log(JSON.stringify(out));
  process.exit(code);
}

try {
  switch (process.env.SCENARIO) {
    case "edit": {
      const q = query({
        prompt: "fix the greeting, then clean up",
        options: {
          ...base,
          permissionMode: "default",
          canUseTool: async (toolName, input, opts) => {
            out.canUseTool.push({ toolName, input, toolUseID: opts?.toolUseID });
            if (toolName === "Bash" && /rm -rf/.test(input.command ?? "")) {
              return { behavior: "deny", message: "do not delete the build folder" };
            }
            return { behavior: "allow", updatedInput: input };
          },
          hooks: {
            PreToolUse: [{
              matcher: "Edit",
              hooks: [async (input) => {
                out.hooks.push({ event: input.hook_event_name, tool: input.tool_name, input: input.tool_input });
                return {};
              }],
            }],
            PostToolUse: [{
              matcher: "Edit",
              hooks: [async (input, toolUseID) => {
                out.hooks.push({ event: input.hook_event_name, tool: input.tool_name, input: input.tool_input, toolUseID,
                  hasResponse: input.tool_response !== undefined });
                return { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "POST-EDIT-CONTEXT" } };
              }],
            }],
          },
        },
      });
      await collect(q);
      break;
    }
    case "plan": {
      // Plan mode: AskUserQuestion and ExitPlanMode reach canUseTool; the
      // answers go back in updatedInput, the first plan is sent back with
      // feedback, the second approved into acceptEdits.
      let plans = 0;
      await collect(query({
        prompt: "plan the storage change",
        options: {
          ...base,
          permissionMode: "plan",
          canUseTool: async (toolName, input, opts) => {
            out.canUseTool.push({ toolName, input, toolUseID: opts?.toolUseID, suggestions: opts?.suggestions });
            if (toolName === "AskUserQuestion") {
              const answers = {};
              for (const q of input.questions) answers[q.question] = q.options[1].label;
              return { behavior: "allow", updatedInput: { ...input, answers } };
            }
            if (toolName === "ExitPlanMode") {
              plans++;
              if (plans === 1) return { behavior: "deny", message: "add a migration step" };
              return { behavior: "allow", updatedInput: input,
                updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }] };
            }
            return { behavior: "deny", message: "unexpected " + toolName };
          },
        },
      }));
      break;
    }
    case "resume": {
      await collect(query({ prompt: "what did I ask you before?", options: { ...base, resume: process.env.RESUME, permissionMode: "bypassPermissions" } }));
      break;
    }
    case "interrupt": {
      let interruptedAt = 0;
      const t0 = Date.now();
      // An interrupted turn ends with an error result, which the SDK throws
      // once it has yielded it.
      await collect(
        query({ prompt: "wait a while", options: { ...base, permissionMode: "bypassPermissions" } }),
        async (m, q) => {
          const uses = m.type === "assistant" ? (m.message.content ?? []).filter((b) => b.type === "tool_use") : [];
          if (uses.some((b) => /sleep/.test(b.input?.command ?? "")) && !interruptedAt) {
            await new Promise((r) => setTimeout(r, 700));
            interruptedAt = Date.now();
            // Not awaited: the turn's result may arrive before the answer to
            // the interrupt request, and the query then closes.
            q.interrupt().catch((e) => { out.interruptError = String(e); });
          }
          if (m.type === "result") {
            out.interruptMillis = Date.now() - interruptedAt;
          }
        },
      ).catch((e) => { out.endError = String(e); });
      out.totalMillis = Date.now() - t0;
      break;
    }
    case "sdkmcp": {
      // An in-process MCP server: its tool runs inside this program, and
      // the CLI reaches it through mcp_message control requests.
      const calc = createSdkMcpServer({
        name: "calc",
        version: "1.0.0",
        tools: [tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async (args) => {
          out.toolCalls = (out.toolCalls ?? 0) + 1;
          return { content: [{ type: "text", text: `sum is ${args.a + args.b}` }] };
        })],
      });
      await collect(query({ prompt: "add 2 and 3", options: { ...base, permissionMode: "bypassPermissions", mcpServers: { calc } } }));
      break;
    }
    case "agents": {
      // A sub-agent the host defines: the model runs it with the Agent tool.
      await collect(query({ prompt: "review the notes", options: { ...base, permissionMode: "bypassPermissions",
        agents: { reviewer: { description: "Reviews files and reports problems.", prompt: "REVIEWER-SYSTEM-PROMPT: you review.", tools: ["Read", "Grep"] } } } }));
      break;
    }
    case "sources": {
      // settingSources decides whether the project's CLAUDE.md, skills and
      // commands are read at all.
      await collect(query({ prompt: "hello", options: { ...base, permissionMode: "bypassPermissions",
        settingSources: JSON.parse(process.env.SETTING_SOURCES) } }));
      break;
    }
    default:
      throw new Error("unknown SCENARIO " + process.env.SCENARIO);
  }
} catch (e) {
  out.errors.push(String(e?.stack ?? e));
  done(1);
}
done(0);
