// Rewind controls on user messages: go back to just before a prompt, its
// code (the files its turn and later ones changed), its conversation, or
// both. See docs/rewind.md.
import { api } from './api.js';
import { el } from './render.js';

const choices = [
  ['both', 'Code and conversation'],
  ['conversation', 'Conversation only'],
  ['files', 'Code only'],
];

// rewindControl returns a small menu for prompt number n; done(restore) is
// called after a rewind succeeded.
export function rewindControl(sessionID, n, done) {
  const menu = el('div', { class: 'rewind-menu' });
  const box = el('details', { class: 'rewind', 'data-checkpoint': String(n) },
    el('summary', { text: '↶ Rewind', title: `Go back to just before prompt ${n}` }), menu);
  for (const [restore, label] of choices) {
    menu.append(el('button', {
      type: 'button', class: 'rewind-' + restore, text: label,
      onclick: () => { box.open = false; rewind(sessionID, n, restore).then((ok) => ok && done(restore)); },
    }));
  }
  return box;
}

async function rewind(sessionID, n, restore, force = false) {
  const what = { both: 'files and conversation', conversation: 'conversation', files: 'files' }[restore];
  if (!force && !confirm(`Rewind the ${what} to just before prompt ${n}?`)) return false;
  try {
    await api('POST', `/api/sessions/${encodeURIComponent(sessionID)}/rewind`, { to: n, restore, force });
    return true;
  } catch (err) {
    if (err.status === 409 && err.code === 'changed_outside' && !force) {
      if (confirm(err.message + '\n\nOverwrite those changes?')) return rewind(sessionID, n, restore, true);
      return false;
    }
    alert(err.message);
    return false;
  }
}

// checkpointsByPosition maps message positions to prompt numbers.
export async function checkpointsByPosition(sessionID) {
  const out = new Map();
  try {
    const { checkpoints } = await api('GET', `/api/sessions/${encodeURIComponent(sessionID)}/checkpoints`);
    for (const c of checkpoints || []) out.set(c.position, c.number);
  } catch { /* no checkpoints: no controls */ }
  return out;
}
