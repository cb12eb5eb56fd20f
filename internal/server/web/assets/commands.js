// The built-in slash commands the page answers itself. The server lists
// the reserved names (builtin_commands); /compact and /init are turns the
// session runs (the runtime and the session expand them), so they are
// sent like any prompt, as is every name the page has no answer for.
import { api } from './api.js';

// runBuiltin answers "/name args" and reports whether it did. page gives
// what it needs: session() (the open session's JSON), say(text, kind),
// openMCP() (unfolds the MCP panel; resolves to the servers), openTasks()
// (the same for the background tasks panel),
// set(field, value) (model or mode, as the pickers do), newSession(),
// commands() (the completion list).
export async function runBuiltin(text, builtins, page) {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (!m || !builtins.includes(m[1])) return false;
  const [, name, rest] = m;
  const args = rest.trim();
  const answer = answers[name];
  if (!answer) return false;
  await answer(args, page);
  return true;
}

const answers = {
  clear: (_, page) => page.newSession(),
  model: (args, page) => (args ? page.set('model', args) : page.say(`Model: ${page.session().model} (change with /model provider/model or the picker above)`)),
  mode: (args, page) => (args ? page.set('mode', args) : page.say(`Mode: ${page.session().mode} (change with /mode NAME or the picker above)`)),
  cost: async (_, page) => {
    const s = await fresh(page);
    const u = s.usage || {};
    let msg = `This session: ${u.input_tokens || 0} input tokens, ${u.output_tokens || 0} output`;
    if (u.cache_read_input_tokens || u.cache_creation_input_tokens) {
      msg += ` (cache: ${u.cache_read_input_tokens || 0} read, ${u.cache_creation_input_tokens || 0} written)`;
    }
    msg += s.total_cost_usd == null ? '; cost unknown (a model without a price)' : `; $${s.total_cost_usd.toFixed(4)}`;
    page.say(msg + '.');
  },
  status: async (_, page) => {
    const s = await fresh(page);
    const lines = [`Session: ${s.id}${s.title ? ' · ' + s.title : ''}`, `Folder: ${s.cwd}`,
      `Model: ${s.model} · runtime ${s.runtime} · mode ${s.mode} · ${s.status}`];
    if (s.context?.tokens) lines.push(`Context: ${s.context.tokens} of ${s.context.window || '?'} tokens`);
    const mcp = await api('GET', `/api/sessions/${encodeURIComponent(s.id)}/mcp`).catch(() => null);
    if (mcp?.servers?.length) lines.push('MCP: ' + mcp.servers.map((v) => `${v.name} ${v.needs_approval ? 'awaiting approval' : v.state}`).join(', '));
    page.say(lines.join('\n'));
  },
  mcp: async (_, page) => {
    const servers = await page.openMCP();
    page.say(servers.length ? 'The MCP servers are in the panel on the left: reconnect, enable, disable or approve them there.'
      : 'No MCP servers: add one with `tandem mcp add NAME COMMAND` or in .mcp.json.');
  },
  tasks: async (_, page) => {
    const tasks = await page.openTasks();
    const running = tasks.filter((t) => t.status === 'running').length;
    page.say(tasks.length ? `${tasks.length} background tasks, ${running} running: they are in the panel on the left, where a running one can be stopped.`
      : 'No background tasks. (The model starts them with run_in_background on Bash or Agent.)');
  },
  help: (_, page) => page.say('Commands:\n' + page.commands().map((c) => `/${c.name}${c.hint ? ' ' + c.hint : ''} — ${c.description}`).join('\n')),
  rewind: (_, page) => page.say('Each prompt has a Rewind control: it goes back to just before that prompt, files, conversation or both.'),
  resume: (_, page) => page.say('Pick a session in the list on the left.'),
  permissions: (_, page) => page.say('Questions open here as dialogs. `tandem permissions` (or /permissions in the terminal UI) lists the rules in force; `tandem permissions why COMMAND` says how a command would be judged.'),
  sandbox: async (args, page) => {
    const m = /^allow\s+(\S+)$/.exec(args);
    if (!m) { page.say('Use /sandbox allow HOST (e.g. api.example.com or *.example.com): the session\'s commands may then reach it until the session ends.', 'warn'); return; }
    try {
      await api('POST', `/api/sessions/${encodeURIComponent(page.session().id)}/sandbox/allow`, { host: m[1] });
      page.say(`${m[1]} allowed for this session.`);
    } catch (err) {
      page.say(err.message, 'error');
    }
  },
  memory: (_, page) => page.say('Memory is the instruction files: AGENTS.md (or CLAUDE.md) in the project, AGENTS.md in tandem\'s config folder for you. Edit them in any editor, or with /memory in the terminal UI.'),
  exit: (_, page) => page.say('Close the tab to leave: the session stays stored and opens again from the list.'),
  quit: (args, page) => answers.exit(args, page),
};

async function fresh(page) {
  const s = page.session();
  return api('GET', '/api/sessions/' + encodeURIComponent(s.id));
}
