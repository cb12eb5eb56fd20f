// tandem web UI: workspaces, sessions, a streamed chat over the session's
// server-sent events, permission dialog and controls.
//
// No loss, no duplicates across reloads: GET /api/sessions/{id} returns the
// stored messages up to a boundary and last_seq, the seq at that boundary;
// the stream is opened after last_seq, so it replays exactly what the
// messages leave out (a running turn included). Events with a seq we have
// already applied are ignored, which covers EventSource's own reconnects.
// The one exception: a turn longer than the server's event ring, whose
// start is gone (stream_floor); the page then says so, and shows the whole
// turn from the stored messages once it ends.
import { api } from './api.js';
import { el, userBubble, textBlock, thinkingBlock, toolCard, notice, todoList, renderMarkdown } from './render.js';
import { rewindControl, checkpointsByPosition } from './rewind.js';
import { runBuiltin } from './commands.js';
import { mcpPanel } from './mcp.js';
import { tasksPanel } from './tasks.js';
import { attachments, imageThumbs } from './attach.js';
import { notifier } from './notify.js';
import { kindOf, renderInteraction } from './interact.js';

const $ = (id) => document.getElementById(id);
const ui = {
  workspaceSelect: $('workspace-select'), workspaceForm: $('workspace-form'), workspacePath: $('workspace-path'),
  workspaceError: $('workspace-error'), sessionList: $('session-list'), newSession: $('new-session'),
  title: $('session-title'), model: $('model-select'), mode: $('mode-select'), runtime: $('runtime-select'),
  tokensIn: $('tokens-in'), tokensOut: $('tokens-out'), cost: $('cost'), conn: $('conn'),
  ctx: $('ctx'), ctxMeter: $('ctx-meter'), ctxText: $('ctx-text'), compact: $('compact'),
  log: $('log'), composer: $('composer'), prompt: $('prompt'), commandList: $('command-list'),
  extensions: $('extensions'), extensionsBody: $('extensions-body'), mcp: $('mcp-panel'), mcpBody: $('mcp-body'),
  tasks: $('tasks-panel'), tasksBody: $('tasks-body'), send: $('send'), interrupt: $('interrupt'),
  queueNote: $('queue-note'), logout: $('logout'), permPending: $('perm-pending'),
  dialog: $('perm-dialog'), permTitle: $('perm-title'), permSummary: $('perm-summary'), permReason: $('perm-reason'), permDetail: $('perm-detail'),
  permMessage: $('perm-message'), permError: $('perm-error'), permOnce: $('perm-once'), permAlways: $('perm-always'), permDeny: $('perm-deny'),
  trustDialog: $('trust-dialog'), trustDir: $('trust-dir'), trustFindings: $('trust-findings'), trustError: $('trust-error'),
  trustYes: $('trust-yes'), trustNo: $('trust-no'),
  trustBanner: $('trust-banner'), trustBannerList: $('trust-banner-list'), trustBannerCmd: $('trust-banner-cmd'),
  trustBannerError: $('trust-banner-error'), trustBannerYes: $('trust-banner-yes'),
};
const attached = attachments(ui.composer, ui.prompt, (text, kind) => { ui.log.append(notice(text, kind)); });
const notify = notifier(document.querySelector('.counters'));

const state = {
  workspaces: [], sessions: [], catalog: { models: [], modes: [], runtimes: [] },
  session: null, // the open session's JSON
  es: null, lastSeq: 0, running: false,
  skipped: false, // the stream resumed past events the ring had dropped
  turn: null, // {node, text, thinking} of the assistant turn being streamed
  cards: new Map(), // tool_use_id -> card
  permQueue: [], // pending permission_request events
  lastPrompt: null, // {node, text}: the user bubble of the latest prompt, for its rewind control
  commands: [], // [{name, description, argument_hint}] for / completion
  builtins: [], // the reserved command names (the server's builtin_commands)
  commandsLoaded: Promise.resolve(), // settles when the open session's command list has been asked for
  endedTurns: 0, // results seen, so send() knows whether its turn already ended
  armTimer: 0, // enables the permission dialog's answers (armDialog)
};

// ---- workspaces and sessions ------------------------------------------

async function loadWorkspaces() {
  const { workspaces } = await api('GET', '/api/workspaces');
  state.workspaces = workspaces;
  const keep = ui.workspaceSelect.value || localStorage.getItem('tandem.workspace');
  ui.workspaceSelect.replaceChildren(...workspaces.map((w) => el('option', { value: w.path, text: `${w.name} — ${w.path}` })));
  if (!workspaces.length) ui.workspaceSelect.append(el('option', { value: '', text: 'No folder registered yet' }));
  if (keep && workspaces.some((w) => w.path === keep)) ui.workspaceSelect.value = keep;
  ui.newSession.disabled = !workspaces.length;
  await loadSessions();
}

async function loadSessions() {
  const cwd = ui.workspaceSelect.value;
  const q = cwd ? '?cwd=' + encodeURIComponent(cwd) : '';
  const { sessions } = await api('GET', '/api/sessions' + q);
  state.sessions = sessions;
  ui.sessionList.replaceChildren(...sessions.map((s) => {
    const current = state.session && state.session.id === s.id;
    return el('li', {}, el('button', {
      class: 'session-item' + (current ? ' current' : ''), 'aria-current': current ? 'true' : undefined,
      onclick: () => openSession(s.id),
    }, el('span', { class: 'session-title', text: s.title || 'Untitled session' }),
    el('span', { class: 'session-meta', text: `${s.status === 'running' ? '● ' : ''}${new Date(s.updated_at).toLocaleString()}` })));
  }));
  if (!sessions.length) ui.sessionList.append(el('li', { class: 'muted', text: 'No sessions in this folder yet.' }));
}

ui.workspaceSelect.addEventListener('change', () => {
  localStorage.setItem('tandem.workspace', ui.workspaceSelect.value);
  loadSessions().catch(showError);
});

ui.workspaceForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  ui.workspaceError.textContent = '';
  try {
    const w = await api('POST', '/api/workspaces', { path: ui.workspacePath.value.trim() });
    ui.workspacePath.value = '';
    localStorage.setItem('tandem.workspace', w.path);
    ui.workspaceSelect.value = w.path;
    await loadWorkspaces();
    ui.workspaceSelect.value = w.path;
    await loadSessions();
  } catch (err) {
    ui.workspaceError.textContent = err.message;
  }
});

ui.newSession.addEventListener('click', async () => {
  try {
    const s = await withTrust(() => api('POST', '/api/sessions', { cwd: ui.workspaceSelect.value }));
    await openSession(s.id);
    await loadSessions();
  } catch (err) { showError(err); }
});

ui.logout.addEventListener('click', async () => {
  await api('POST', '/api/logout').catch(() => {});
  location.replace('/login');
});

// ---- opening a session --------------------------------------------------

async function openSession(id, minSeq = 0) {
  closeStream();
  const s = await fetchSession(id, minSeq);
  const checkpoints = await checkpointsByPosition(s.id);
  state.session = s;
  // stream_floor: the ring has dropped the running turn's first events,
  // so resuming after last_seq would be refused (and reload for ever);
  // resume after the floor and say what was skipped.
  const skipped = Math.max(0, (s.stream_floor || 0) - s.last_seq);
  state.lastSeq = s.last_seq + skipped;
  state.skipped = skipped > 0;
  state.turn = null;
  state.cards = new Map();
  state.permQueue = [];
  closeDialog();
  history.replaceState(null, '', '#' + s.id);
  ui.title.textContent = s.title || 'New session';
  ui.log.replaceChildren();
  renderStored(s.messages, checkpoints, s.subagents);
  if (!s.messages.length && !skipped) ui.log.append(el('div', { class: 'empty', text: 'Say what you want done in ' + s.cwd + '.' }));
  if (skipped) {
    // The turn's user_message event is among those not kept.
    if (s.running_prompt) {
      const bubble = userBubble(s.running_prompt);
      state.lastPrompt = { node: bubble, text: s.running_prompt };
      ui.log.append(bubble);
    }
    ui.log.append(notice(`${skipped} events of the running turn were not kept; the full result appears when the turn ends.`, 'warn'));
  }
  setControls(s);
  setCounters(s);
  setRunning(s.status === 'running', s.queued);
  openStream();
  state.commandsLoaded = loadCommands(s.id);
  refreshMCP(s.id);
  refreshTasks(s.id);
  showTrustBanner(s.cwd);
  for (const b of document.querySelectorAll('.session-item')) b.classList.remove('current');
  ui.prompt.disabled = false;
  ui.send.disabled = false;
  ui.prompt.focus();
  loadSessions().catch(() => {});
}

// fetchSession gets the session JSON, waiting (a few seconds at most)
// until its last_seq reaches minSeq: the stored messages cover a turn
// only a moment after its result event.
async function fetchSession(id, minSeq) {
  for (let tries = 0; ; tries++) {
    const s = await api('GET', '/api/sessions/' + encodeURIComponent(id));
    if (s.last_seq >= minSeq || tries >= 50) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// renderStored shows stored history: the messages, and each sub-agent's
// steps inside the card of the call that started it (subagents: the
// session JSON's, each naming its call in parent_tool_use_id).
function renderStored(messages, checkpoints, subagents) {
  const kids = byCall(subagents);
  for (const [i, m] of messages.entries()) {
    if (m.kind === 'compaction') {
      ui.log.append(compactionNotice(m.compaction || {}, m.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n')));
      state.turn = null;
      continue;
    }
    if (m.role === 'user') {
      const text = m.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
      for (const b of m.content) {
        if (b.type === 'tool_result') state.cards.get(b.tool_use_id)?.finish(resultText(b), b.is_error, b.diff);
      }
      if (text) {
        const bubble = userBubble(text);
        const thumbs = imageThumbs(m.content);
        if (thumbs) bubble.append(thumbs);
        const n = checkpoints.get(i + 1); // positions count from 1
        if (n) addRewind(bubble, n, text);
        ui.log.append(bubble);
        state.turn = null;
      }
      continue;
    }
    const turn = ensureTurn();
    for (const b of m.content) {
      if (b.type === 'text') { const t = textBlock(); t.set(b.text); turn.body.append(t.node); }
      else if (b.type === 'thinking' && b.text) { const t = thinkingBlock(); t.set(b.text); turn.body.append(t.node); }
      else if (b.type === 'tool_use') {
        const c = toolCard(b.name, b.input);
        state.cards.set(b.id, c);
        turn.body.append(c.node);
        if (kids.has(b.id)) renderNested(c, kids.get(b.id));
      }
    }
    turn.text = null;
    turn.thinking = null;
  }
  state.turn = null;
  scrollDown(true);
}

// renderNested puts a stored sub-agent's steps in card as the live events
// did (applyNested): its text and tool cards, each card finished by its
// result, its own sub-agents nested further. Its prompt and thinking were
// not shown live and are not now.
function renderNested(card, sub) {
  const kids = byCall(sub.subagents);
  for (const m of sub.messages || []) {
    if (m.kind === 'compaction') continue;
    if (m.role === 'user') {
      for (const b of m.content) {
        if (b.type === 'tool_result') state.cards.get(b.tool_use_id)?.finish(resultText(b), b.is_error, b.diff);
      }
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'text' && b.text) card.childText(b.text);
      else if (b.type === 'tool_use') {
        const c = toolCard(b.name, b.input);
        state.cards.set(b.id, c);
        card.child(c.node);
        if (kids.has(b.id)) renderNested(c, kids.get(b.id));
      }
    }
  }
}

// byCall indexes sub-agent sessions by the tool call that started them.
function byCall(subagents) {
  return new Map((subagents || []).filter((k) => k.parent_tool_use_id).map((k) => [k.parent_tool_use_id, k]));
}

function resultText(b) {
  return (b.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// addRewind puts prompt n's rewind control on its bubble; after a rewind
// the session reloads and, as in Claude Code, the prompt comes back into
// the composer to be edited and sent again (unless only code went back).
function addRewind(bubble, n, text) {
  const id = state.session.id;
  bubble.append(rewindControl(id, n, async (restore) => {
    await openSession(id);
    if (restore !== 'files' && !ui.prompt.value.trim()) ui.prompt.value = text;
  }));
}

function ensureTurn() {
  if (!state.turn) {
    const body = el('div', { class: 'turn-body' });
    const node = el('div', { class: 'msg assistant' }, body);
    ui.log.append(node);
    state.turn = { node, body, text: null, thinking: null };
  }
  return state.turn;
}

// ---- the event stream ---------------------------------------------------

function openStream() {
  const id = state.session.id;
  const es = new EventSource(`/api/sessions/${encodeURIComponent(id)}/events?last_event_id=${state.lastSeq}`);
  state.es = es;
  es.onopen = () => { ui.conn.className = 'conn live'; ui.conn.title = 'Event stream connected'; };
  es.onerror = () => { ui.conn.className = 'conn down'; ui.conn.title = 'Event stream reconnecting…'; };
  es.onmessage = (msg) => {
    let ev;
    try { ev = JSON.parse(msg.data); } catch { return; }
    if (ev.type === 'keep_alive') return;
    if (ev.type === 'status' && ev.subtype === 'reload_required') {
      closeStream();
      openSession(id).catch(showError);
      return;
    }
    if (ev.seq <= state.lastSeq) return; // already applied
    state.lastSeq = ev.seq;
    apply(ev);
  };
}

function closeStream() {
  if (state.es) state.es.close();
  state.es = null;
  ui.conn.className = 'conn';
}

// applyNested puts a sub-agent's event in the card of the Agent (or Skill)
// call that started it.
function applyNested(ev) {
  const parent = state.cards.get(ev.parent_tool_use_id);
  if (!parent) return;
  switch (ev.type) {
    case 'text': parent.childText(ev.text); break;
    case 'tool_use': {
      const card = toolCard(ev.tool_name, ev.input);
      state.cards.set(ev.tool_use_id, card);
      parent.child(card.node);
      break;
    }
    case 'tool_output': state.cards.get(ev.tool_use_id)?.output(ev.output, ev.stream); break;
    case 'tool_result': state.cards.get(ev.tool_use_id)?.finish(ev.output, ev.is_error, ev.diff); break;
    case 'retry': case 'error': parent.child(notice(ev.error || 'Error', ev.type === 'error' ? 'error' : 'warn')); break;
    default: break;
  }
}

function apply(ev) {
  const atBottom = isAtBottom();
  if (ev.parent_tool_use_id && ev.type !== 'permission_request' && ev.type !== 'permission_reply') {
    applyNested(ev);
    scrollDown(atBottom);
    return;
  }
  switch (ev.type) {
    case 'background_task':
      refreshTasks(state.session.id);
      if (ev.task && ev.task.status !== 'running') {
        const t = ev.task;
        ui.log.append(notice(`Background ${t.kind} ${t.id} (${t.description || ''}) ${t.status === 'completed' ? 'finished' : t.status}` +
          `${t.summary ? ': ' + t.summary : ''}${state.running ? '' : ' (the model reads it with your next message)'}`, t.status === 'completed' ? 'info' : 'warn'));
        scrollDown(atBottom);
      }
      return;
    case 'status':
      if (ev.meta?.mcp_status) refreshMCP(state.session.id); // a server connected, failed, ...
      if (ev.subtype === 'rewound') {
        openSession(state.session.id).catch(showError);
        return;
      }
      if (ev.subtype === 'user_message') {
        ui.log.querySelector('.empty')?.remove();
        const bubble = userBubble(ev.text);
        state.lastPrompt = { node: bubble, text: ev.text };
        ui.log.append(bubble);
        state.turn = null;
        setRunning(true);
        if (!state.session.title) ui.title.textContent = ev.text.split('\n')[0].slice(0, 80);
      }
      break;
    case 'text': {
      const turn = ensureTurn();
      if (!turn.text) { turn.text = textBlock(); turn.body.append(turn.text.node); turn.thinking = null; }
      turn.text.append(ev.text);
      break;
    }
    case 'thinking': {
      if (!ev.text) break; // a signature closing the block
      const turn = ensureTurn();
      if (!turn.thinking) { turn.thinking = thinkingBlock(); turn.body.append(turn.thinking.node); turn.text = null; }
      turn.thinking.append(ev.text);
      break;
    }
    case 'tool_use': {
      const turn = ensureTurn();
      const card = toolCard(ev.tool_name, ev.input);
      state.cards.set(ev.tool_use_id, card);
      turn.body.append(card.node);
      turn.text = null;
      turn.thinking = null;
      break;
    }
    case 'tool_output':
      state.cards.get(ev.tool_use_id)?.output(ev.output, ev.stream);
      break;
    case 'tool_result':
      state.cards.get(ev.tool_use_id)?.finish(ev.output, ev.is_error, ev.diff);
      break;
    case 'tool_timeout':
      ensureTurn().body.append(notice(`${ev.tool_name} ran past its time limit and was stopped.`, 'warn'));
      break;
    case 'permission_request':
      state.cards.get(ev.tool_use_id)?.waiting(true);
      notify('tandem: permission needed', ev.tool_name ? `${ev.tool_name} waits for your answer` : 'A question waits for your answer', 'perm-' + ev.request_id);
      state.permQueue.push(ev);
      if (state.permQueue.length === 1) showDialog();
      break;
    case 'permission_reply': {
      const wasShown = state.permQueue[0] && state.permQueue[0].request_id === ev.request_id;
      state.permQueue = state.permQueue.filter((q) => q.request_id !== ev.request_id);
      if (ev.decision === 'deny') state.cards.get(ev.tool_use_id)?.denied();
      if (wasShown) { closeDialog(); if (state.permQueue.length) showDialog(); }
      break;
    }
    case 'task_update':
      ensureTurn().body.append(todoList(ev.todos));
      break;
    case 'context':
      setContext(ev.context_tokens, ev.context_window);
      break;
    case 'compact_boundary':
      ensureTurn().body.append(compactionNotice({ trigger: ev.trigger, tokens_before: ev.tokens_before, tokens_after: ev.tokens_after }, ''));
      break;
    case 'retry':
      ensureTurn().body.append(notice(`Provider call failed (${ev.error || ev.http_status}); retrying, attempt ${ev.attempt}…`, 'warn'));
      break;
    case 'error':
      ensureTurn().body.append(notice(ev.error || ev.message || 'Error', 'error'));
      break;
    case 'sandbox_denial':
      ensureTurn().body.append(sandboxDenial(ev));
      break;
    case 'mode_changed':
      ui.mode.value = ev.mode;
      state.session.mode = ev.mode;
      break;
    case 'rewind_point':
      if (state.lastPrompt && !state.lastPrompt.node.querySelector('.rewind')) {
        addRewind(state.lastPrompt.node, ev.checkpoint, state.lastPrompt.text);
      }
      break;
    case 'result':
      endTurn(ev);
      break;
    default:
      break;
  }
  scrollDown(atBottom);
}

function endTurn(ev) {
  notify(ev.is_error ? 'tandem: turn failed' : 'tandem: turn finished', ev.result || ev.error || ev.subtype, 'turn-' + (state.session?.id || ''));
  if (ev.subtype && ev.subtype !== 'success') {
    const what = ev.subtype === 'interrupted' ? 'Interrupted.' : (ev.result || ev.subtype);
    ensureTurn().body.append(notice(what, ev.subtype === 'interrupted' ? 'info' : 'error'));
  }
  state.turn = null;
  state.permQueue = [];
  state.endedTurns++;
  closeDialog();
  setRunning(false);
  if (state.skipped) {
    // The page missed part of the turn: show it whole from the stored
    // messages, which have it now.
    openSession(state.session.id, ev.seq).catch(showError);
    return;
  }
  refreshSession();
}

async function refreshSession() {
  if (!state.session) return;
  const id = state.session.id;
  try {
    const s = await api('GET', '/api/sessions/' + encodeURIComponent(id));
    if (!state.session || state.session.id !== id) return;
    state.session = { ...state.session, ...s, messages: undefined };
    if (s.title) ui.title.textContent = s.title;
    setCounters(s);
    // Whether a turn runs is known from the events (user_message starts
    // one, result ends it); the snapshot may lag behind them by a moment.
    loadSessions().catch(() => {});
  } catch { /* the stream goes on */ }
}

// ---- controls -------------------------------------------------------------

async function loadCatalog() {
  const c = await api('GET', '/api/models');
  state.catalog = c;
}

function fillSelect(select, values, current, labels = {}) {
  const opts = [...new Set([...(values || []), current].filter(Boolean))];
  select.replaceChildren(...opts.map((v) => el('option', { value: v, text: labels[v] || v })));
  select.value = current || '';
  select.disabled = false;
}

function setControls(s) {
  // A model that is not active shows its status ("legacy",
  // "deprecated, retires ..."); retired ones are not listed.
  const models = state.catalog.models.map((m) => m.id);
  const labels = Object.fromEntries(state.catalog.models.filter((m) => m.status).map((m) => [m.id, `${m.id} (${m.status})`]));
  fillSelect(ui.model, models, s.model, labels);
  fillSelect(ui.mode, state.catalog.modes, s.mode);
  fillSelect(ui.runtime, state.catalog.runtimes, s.runtime);
}

const pickers = { model: ui.model, mode: ui.mode, runtime: ui.runtime };
for (const [field, select] of Object.entries(pickers)) {
  select.addEventListener('change', () => setField(field, select.value));
}

// setField changes the session's model, mode or runtime (a picker, or
// /model and /mode); the picker shows what is in force.
async function setField(field, value) {
  if (!state.session) return;
  const select = pickers[field];
  try {
    const s = await api('PATCH', '/api/sessions/' + state.session.id, { [field]: value });
    state.session[field] = s[field];
    if (![...select.options].some((o) => o.value === s[field])) select.append(el('option', { value: s[field], text: s[field] }));
    select.value = s[field];
  } catch (err) {
    select.value = state.session[field];
    showError(err);
  }
}

// setContext shows how full the context window is.
function setContext(tokens, window) {
  if (!tokens) { ui.ctx.hidden = true; return; }
  ui.ctx.hidden = false;
  const frac = window ? Math.min(tokens / window, 1) : 0;
  ui.ctxMeter.value = frac;
  ui.ctxText.textContent = window ? `${Math.round(frac * 100)}%` : `${Math.round(tokens / 1000)}k`;
  ui.ctx.title = window ? `Context window: ${tokens.toLocaleString()} of ${window.toLocaleString()} tokens` : `Context: ${tokens.toLocaleString()} tokens`;
}

// compactionNotice marks where the conversation was summarised; the summary
// itself (stored sessions) is folded away.
function compactionNotice(c, summary) {
  const what = `Conversation compacted (${c.trigger || 'manual'})` +
    (c.tokens_before ? `: about ${c.tokens_before.toLocaleString()} tokens → ${(c.tokens_after || 0).toLocaleString()}` : '');
  const node = el('details', { class: 'notice info compaction' }, el('summary', { text: what }));
  if (summary) node.append(el('div', { class: 'compaction-summary', text: summary }));
  return node;
}

function setCounters(s) {
  setContext(s.context?.tokens, s.context?.window);
  const u = s.usage || {};
  ui.tokensIn.textContent = ((u.input_tokens || 0) + (u.cache_read_input_tokens || 0) + (u.cache_creation_input_tokens || 0)).toLocaleString();
  ui.tokensOut.textContent = (u.output_tokens || 0).toLocaleString();
  ui.cost.textContent = s.total_cost_usd == null ? '?' : s.total_cost_usd.toFixed(4);
}

function setRunning(on, queued) {
  state.running = on;
  ui.interrupt.disabled = !on;
  ui.compact.disabled = on || !state.session;
  document.body.classList.toggle('busy', on);
  const n = (queued || []).length;
  ui.queueNote.textContent = on ? (n ? `Working… ${n} queued` : 'Working…') : '';
}

// ---- sending, interrupting ------------------------------------------------

const refreshMCP = mcpPanel(ui.mcp, ui.mcpBody, showError);
const refreshTasks = tasksPanel(ui.tasks, ui.tasksBody, showError);

// page is what the built-in commands (commands.js) act on.
const page = {
  openMCP: () => refreshMCP(state.session.id, true),
  openTasks: () => refreshTasks(state.session.id, true),
  session: () => state.session,
  say: (text, kind = 'info') => { ui.log.append(notice(text, kind)); scrollDown(true); },
  set: (field, value) => setField(field, value),
  newSession: () => ui.newSession.click(),
  commands: () => state.commands,
};

async function send() {
  const text = ui.prompt.value;
  if (!text.trim() || !state.session) return;
  ui.prompt.value = '';
  try {
    // Whether "/name" is the page's own command is the server's list to
    // say: one typed before the list arrived waits for it rather than
    // going to the model as text.
    if (!attached.count() && text.trimStart().startsWith('/')) {
      await state.commandsLoaded;
      if (await runBuiltin(text, state.builtins, page)) return;
    }
  } catch (err) { showError(err); return; }
  const ended = state.endedTurns;
  const { images, undo } = attached.take();
  try {
    const r = await withTrust(() => api('POST', `/api/sessions/${state.session.id}/messages`, images.length ? { text, images } : { text }));
    if (r.queued) ui.queueNote.textContent = `Queued (#${r.position}) — it runs after the current turn.`;
    // A fast turn may have ended (its result arrived on the stream) before
    // this answer did: then it is not running any more.
    if (r.queued || state.endedTurns === ended) setRunning(true, r.queued ? new Array(r.position) : []);
    if (r.queued) ui.queueNote.textContent = `Working… message queued at #${r.position}`;
  } catch (err) {
    ui.prompt.value = text;
    undo();
    showError(err);
  }
}

async function compactNow() {
  if (!state.session || state.running) return;
  try {
    // The user_message event marks the turn running (a short compaction
    // may finish before this answer arrives).
    ui.compact.disabled = true;
    await api('POST', `/api/sessions/${state.session.id}/compact`, {});
  } catch (err) { ui.compact.disabled = false; showError(err); }
}

async function interrupt() {
  if (!state.session || !state.running) return;
  try { await api('POST', `/api/sessions/${state.session.id}/interrupt`); } catch (err) { showError(err); }
}

ui.composer.addEventListener('submit', (e) => { e.preventDefault(); send(); });
ui.prompt.addEventListener('keydown', (e) => {
  if (e.key === 'Tab' && !ui.commandList.hidden) {
    const first = ui.commandList.querySelector('button');
    if (first) { e.preventDefault(); first.click(); }
    return;
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); ui.commandList.hidden = true; send(); }
});
ui.prompt.addEventListener('input', suggestCommands);

// ---- / command completion ----------------------------------------------

async function loadCommands(id) {
  state.commands = [];
  try {
    const ext = await api('GET', `/api/sessions/${encodeURIComponent(id)}/skills`);
    state.commands = (ext.commands || []).map((c) => ({ name: c.name, description: c.description, hint: c.argument_hint || '' }))
      .concat((ext.builtin_commands || []).map((n) => ({ name: n, description: 'built in', hint: '' })));
    state.builtins = ext.builtin_commands || [];
    showExtensions(ext);
  } catch (err) { state.commandsError = String(err); /* completion is optional */ }
  if (state.session && state.session.id === id) suggestCommands(); // the user may have typed already
}

// showExtensions lists the session's skills and agents, and the problems
// found in their files, in the sidebar.
function showExtensions(ext) {
  const section = (title, items) => items.length ? [el('h3', { text: title }),
    el('ul', { class: 'ext-list' }, ...items.map(([name, desc]) => el('li', {}, el('b', { text: name }), el('span', { class: 'muted', text: ' ' + (desc || '') }))))] : [];
  const skills = (ext.skills || []).map((s) => [s.name, s.description]);
  const agents = (ext.agents || []).map((a) => [a.name, a.description]);
  const problems = (ext.warnings || []).map((w) => [w.file.split('/').slice(-2).join('/'), (w.field ? w.field + ': ' : '') + w.message]);
  ui.extensionsBody.replaceChildren(...section('Skills', skills), ...section('Agents', agents), ...section('Problems', problems));
  ui.extensions.hidden = false;
}

function suggestCommands() {
  const m = /^\/(\S*)$/.exec(ui.prompt.value);
  const matches = m ? state.commands.filter((c) => c.name.startsWith(m[1])).slice(0, 8) : [];
  ui.commandList.replaceChildren(...matches.map((c) => el('li', {},
    el('button', { type: 'button', class: 'command-item', onclick: () => {
      ui.prompt.value = '/' + c.name + ' ';
      ui.commandList.hidden = true;
      ui.prompt.focus();
    } }, el('span', { class: 'command-name', text: '/' + c.name + (c.hint ? ' ' + c.hint : '') }),
      el('span', { class: 'muted', text: ' ' + (c.description || '') })))));
  ui.commandList.hidden = matches.length === 0;
}
ui.interrupt.addEventListener('click', interrupt);
ui.compact.addEventListener('click', compactNow);
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !ui.dialog.open && state.running) { e.preventDefault(); interrupt(); }
});

// ---- permission dialog -----------------------------------------------------

const permNoteLabel = document.querySelector('label[for="perm-message"]');

function showDialog() {
  const q = state.permQueue[0];
  if (!q) return;
  ui.permSummary.textContent = q.summary || `${q.tool_name} wants to run`;
  ui.permReason.textContent = q.message || '';
  ui.permDetail.replaceChildren();
  // A question to the user (a plan, the model's questions) has its own
  // form and button labels (interact.js); a tool call the plain ones.
  state.interaction = kindOf(q) ? renderInteraction(q, ui.permDetail) : null;
  const it = state.interaction;
  ui.permTitle.textContent = it ? it.title : 'Permission needed';
  ui.permOnce.textContent = it ? it.once : 'Allow once';
  ui.permAlways.textContent = it?.always || 'Allow always';
  ui.permDeny.textContent = it ? it.deny : 'Deny';
  permNoteLabel.textContent = it ? it.note : 'Note for the agent (when denying)';
  if (it) {
    // rendered by renderInteraction
  } else if (q.diff) {
    import('./render.js').then(({ diffView }) => ui.permDetail.replaceChildren(diffView(q.diff)));
  } else {
    ui.permDetail.textContent = JSON.stringify(q.input ?? {}, null, 2);
  }
  ui.permAlways.hidden = it ? !it.always : !q.suggestion;
  ui.permAlways.title = !it && q.suggestion ? 'Saves: ' + q.suggestion : '';
  ui.permMessage.value = '';
  ui.permError.textContent = '';
  armDialog();
  if (!ui.dialog.open) ui.dialog.showModal();
  ui.permTitle.focus();
  updatePending();
}

// A dialog that opens while the user types must not take their keys as an
// answer: an Enter meant for the prompt would click "Allow once". The
// answers wait ARM_MS (as browsers' own install prompts do), focus rests
// on the title meanwhile, and then moves to "Allow once" unless the user
// has moved it.
const ARM_MS = 600;
const answerButtons = [ui.permOnce, ui.permAlways, ui.permDeny];
function armDialog() {
  clearTimeout(state.armTimer);
  for (const b of answerButtons) b.disabled = true;
  state.armTimer = setTimeout(() => {
    for (const b of answerButtons) b.disabled = false;
    if (ui.dialog.open && document.activeElement === ui.permTitle) ui.permOnce.focus();
  }, ARM_MS);
}

function closeDialog() {
  if (ui.dialog.open) ui.dialog.close();
  updatePending();
}

// The dialog may be dismissed with Escape; the request stays pending and
// this button brings it back.
function updatePending() {
  ui.permPending.hidden = !state.permQueue.length || ui.dialog.open;
}

async function answer(decision) {
  const q = state.permQueue[0];
  if (!q) { closeDialog(); return; }
  const body = state.interaction ? state.interaction.body(decision) : { decision };
  if (decision === 'deny' && ui.permMessage.value.trim()) body.message = ui.permMessage.value.trim();
  try {
    // The queue is emptied when another session opens, so its requests
    // belong to the open session.
    await api('POST', '/api/sessions/' + encodeURIComponent(state.session.id) +
      '/permissions/' + encodeURIComponent(q.request_id), body);
  } catch (err) {
    if (err.status !== 409 && err.status !== 404) { ui.permError.textContent = err.message; return; }
  }
  // The permission_reply event moves the queue on; do it now for snappiness.
  state.permQueue = state.permQueue.filter((x) => x.request_id !== q.request_id);
  closeDialog();
  if (state.permQueue.length) showDialog(); else ui.prompt.focus();
}

ui.permOnce.addEventListener('click', () => answer('allow_once'));
ui.permAlways.addEventListener('click', () => answer('allow_always'));
ui.permDeny.addEventListener('click', () => answer('deny'));
// Enter in the note denies with it (the form would otherwise just close).
ui.permMessage.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || e.isComposing) return;
  e.preventDefault();
  if (!ui.permDeny.disabled) answer('deny');
});
// Escape on the dialog answers nothing: it hides it, the request stays
// pending and the "Review permission request" button reopens it.
ui.dialog.addEventListener('close', () => { updatePending(); });
ui.dialog.addEventListener('cancel', () => { setTimeout(() => ui.permPending.focus(), 0); });
ui.permPending.addEventListener('click', showDialog);

// ---- folder trust ------------------------------------------------------------

// withTrust runs call; when the server refuses because the session's folder
// is not trusted, it asks the user once (the answer is stored by the
// server) and, if trusted, runs call again.
async function withTrust(call) {
  try {
    return await call();
  } catch (err) {
    if (err.code !== 'folder_not_trusted' || !err.trust) throw err;
    if (!(await askTrust(err.trust))) throw new Error('The folder is not trusted, so nothing was started. Trust it here or with `tandem trust ' + err.trust.dir + '`.');
    return call();
  }
}

// showTrustBanner says, above the conversation, which project settings a
// session in the untrusted folder dir runs without, with a Trust button.
async function showTrustBanner(dir) {
  ui.trustBanner.hidden = true;
  let st;
  try { st = await api('GET', '/api/trust?path=' + encodeURIComponent(dir)); } catch { return; }
  if (st.trusted || !(st.needs_trust || []).length || state.session?.cwd !== dir) return;
  ui.trustBannerList.replaceChildren(...st.needs_trust.map((f) =>
    el('li', {}, el('code', { text: f.key }), ' in ', el('code', { text: f.file }), ': ' + f.why)));
  ui.trustBanner.querySelector('p').replaceChildren(el('strong', { text: 'This folder is not trusted.' }),
    " The session runs without these project settings (everything else in the project's files applies):");
  ui.trustBannerCmd.textContent = 'tandem trust ' + st.dir;
  ui.trustBannerError.textContent = '';
  ui.trustBannerYes.hidden = false;
  ui.trustBannerYes.onclick = async () => {
    try {
      await api('POST', '/api/trust', { path: st.dir });
      ui.trustBannerYes.hidden = true;
      ui.trustBannerList.replaceChildren();
      ui.trustBannerError.textContent = '';
      ui.trustBanner.querySelector('p').textContent = 'This folder is trusted now: start a new session to use all of its project settings.';
    } catch (err) { ui.trustBannerError.textContent = err.message; }
  };
  ui.trustBanner.hidden = false;
}

function askTrust(t) {
  ui.trustDir.textContent = t.dir;
  ui.trustFindings.replaceChildren(...(t.findings || []).map((f) =>
    el('li', {}, el('code', { text: f.key }), ' in ', el('code', { text: f.file }), ': ' + f.why)));
  ui.trustError.textContent = '';
  return new Promise((resolve) => {
    const done = (v) => {
      ui.trustYes.onclick = ui.trustNo.onclick = ui.trustDialog.oncancel = null;
      if (ui.trustDialog.open) ui.trustDialog.close();
      resolve(v);
    };
    ui.trustNo.onclick = () => done(false);
    ui.trustDialog.oncancel = () => done(false);
    ui.trustYes.onclick = async () => {
      try {
        await api('POST', '/api/trust', { path: t.dir });
        done(true);
      } catch (err) { ui.trustError.textContent = err.message; }
    };
    ui.trustDialog.showModal();
    ui.trustNo.focus();
  });
}

// ---- helpers ---------------------------------------------------------------

function isAtBottom() {
  return ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 80;
}

function scrollDown(force) {
  if (force) requestAnimationFrame(() => { ui.log.scrollTop = ui.log.scrollHeight; });
}

function showError(err) {
  const n = notice(err.message || String(err), 'error');
  ui.log.append(n);
  scrollDown(true);
}

async function start() {
  try {
    await Promise.all([loadCatalog(), loadWorkspaces()]);
    const id = location.hash.slice(1);
    if (id && id !== state.session?.id && id !== state.opening) {
      state.opening = id;
      await openSession(id).catch(() => history.replaceState(null, '', location.pathname)).finally(() => { state.opening = null; });
    }
    else ui.workspaceSelect.focus();
  } catch (err) { showError(err); }
}

start();
// A session link followed while the page is open (#ses_...) opens it; the
// page's own replaceState calls do not fire this.
window.addEventListener('hashchange', () => {
  const id = location.hash.slice(1);
  if (id && id !== state.session?.id && id !== state.opening) {
    state.opening = id;
    openSession(id).catch(showError).finally(() => { state.opening = null; });
  }
});
// Exposed for tests and debugging; holds no secrets.
window.tandem = { state, renderMarkdown };

// sandboxDenial shows what the OS sandbox refused and, for a host, a
// button that allows it for this session (POST .../sandbox/allow).
function sandboxDenial(ev) {
  const n = notice(ev.message || 'The sandbox refused something.', 'warn');
  n.classList.add('sandbox-denial');
  const host = ev.meta?.kind === 'network' ? ev.meta?.allow : '';
  if (host && state.session) {
    const id = state.session.id;
    const b = el('button', { type: 'button', class: 'allow-host', text: `Allow ${host} for this session` });
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        await api('POST', '/api/sessions/' + encodeURIComponent(id) + '/sandbox/allow', { host });
        b.textContent = `${host} allowed for this session`;
      } catch (err) {
        b.disabled = false;
        showError(err);
      }
    });
    n.append(el('div', {}, b));
  }
  return n;
}
