// The sidebar's MCP panel: the open session's servers with their state,
// tools and error, and what can be done with each (reconnect, enable,
// disable, approve a project's server, sign in to one that needs OAuth), as
// the terminal UI's /mcp.
import { api } from './api.js';
import { el } from './render.js';

// mcpPanel returns refresh(sessionId, open): it reloads the servers into
// body and shows details (hidden while a session has none); open unfolds it.
export function mcpPanel(details, body, onError) {
  let current = null;
  const render = (id, servers) => {
    if (id !== current) return; // another session opened meanwhile
    details.hidden = servers.length === 0;
    body.replaceChildren(...servers.map((s) => row(id, s)));
  };
  const act = async (id, name, action) => {
    try {
      const r = await api('POST', `/api/sessions/${encodeURIComponent(id)}/mcp/${encodeURIComponent(name)}`, { action });
      render(id, r.servers);
    } catch (err) { onError(err); }
  };
  const row = (id, s) => {
    const state = s.needs_approval ? 'awaiting approval' : s.state;
    const actions = [];
    if (s.needs_approval) actions.push('approve');
    else if (s.state === 'disabled') actions.push('enable');
    if (s.state === 'needs-auth' && !s.auth_url) actions.push('login');
    if (s.state === 'failed' || s.state === 'connected') actions.push('reconnect');
    if (s.state !== 'disabled') actions.push('disable');
    return el('div', { class: 'mcp-server', 'data-name': s.name, 'data-state': state },
      el('div', {}, el('span', { class: 'mcp-dot ' + s.state }), el('b', { text: s.name }),
        el('span', { class: 'muted', text: ` ${s.type} · ${state} · ${s.tools} tools` })),
      s.error ? el('div', { class: 'error-text mcp-error', text: s.error }) : '',
      /^https?:\/\//.test(s.auth_url || '') ? el('div', { class: 'mcp-auth' },
        el('a', { href: s.auth_url, target: '_blank', rel: 'noopener noreferrer', text: 'Open the sign-in page' })) : '',
      el('div', { class: 'mcp-actions' }, ...actions.map((a) => el('button', { type: 'button', class: 'small', 'data-action': a,
        text: a === 'login' ? 'Sign in' : a[0].toUpperCase() + a.slice(1), onclick: () => act(id, s.name, a) }))));
  };
  return async (id, open = false) => {
    current = id;
    try {
      const r = await api('GET', `/api/sessions/${encodeURIComponent(id)}/mcp`);
      render(id, r.servers || []);
      if (open && r.servers?.length) details.open = true;
      return r.servers || [];
    } catch (err) { onError(err); return []; }
  };
}
