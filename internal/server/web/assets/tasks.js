// The sidebar's background tasks panel: the open session's background
// shells and sub-agents with their status, and a Stop button for each
// running one, as the terminal UI's /tasks. It reloads on every
// background_task event.
import { api } from './api.js';
import { el } from './render.js';

// tasksPanel returns refresh(sessionId, open): it reloads the tasks into
// body and shows details (hidden while a session has none); open unfolds it.
export function tasksPanel(details, body, onError) {
  let current = null;
  const render = (id, tasks) => {
    if (id !== current) return; // another session opened meanwhile
    details.hidden = tasks.length === 0;
    const running = tasks.filter((t) => t.status === 'running').length;
    details.querySelector('summary').textContent = running ? `Background tasks (${running} running)` : 'Background tasks';
    body.replaceChildren(...tasks.map((t) => row(id, t)));
  };
  const stop = async (id, taskId) => {
    try {
      await api('POST', `/api/sessions/${encodeURIComponent(id)}/tasks/${encodeURIComponent(taskId)}/stop`);
    } catch (err) { onError(err); }
    refresh(id);
  };
  const row = (id, t) => el('div', { class: 'task', 'data-id': t.id, 'data-status': t.status },
    el('div', {}, el('span', { class: 'mcp-dot ' + (t.status === 'running' ? 'connected' : t.status === 'completed' ? 'disabled' : 'failed') }),
      el('b', { text: t.id }), el('span', { class: 'muted', text: ` ${t.kind} · ${t.status}` })),
    el('div', { class: 'task-desc', text: t.description || '' }),
    t.summary ? el('div', { class: t.status === 'completed' ? 'muted' : 'error-text', text: t.summary }) : '',
    t.status === 'running' && t.stoppable ? el('div', { class: 'mcp-actions' },
      el('button', { type: 'button', class: 'small', 'data-action': 'stop', text: 'Stop', onclick: () => stop(id, t.id) })) : '');
  const refresh = async (id, open = false) => {
    current = id;
    try {
      const r = await api('GET', `/api/sessions/${encodeURIComponent(id)}/tasks`);
      render(id, r.tasks || []);
      if (open && r.tasks?.length) details.open = true;
      return r.tasks || [];
    } catch (err) { onError(err); return []; }
  };
  return refresh;
}
