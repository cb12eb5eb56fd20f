// Browser notifications when a turn ends or a question waits while the
// page is not in focus, once the user has allowed them (a button in the
// top bar asks; browsers only ask after a click).
import { el } from './render.js';

export function notifier(bar) {
  const supported = 'Notification' in window;
  const btn = el('button', { type: 'button', id: 'notify-toggle', class: 'link small', title: 'Notify me when a turn ends or a question waits while this page is in the background' });
  const label = () => {
    const p = supported ? window.Notification.permission : 'unsupported';
    btn.textContent = p === 'granted' ? '🔔 on' : p === 'denied' ? '🔕 blocked' : '🔔 Notify me';
    btn.disabled = !supported || p !== 'default';
    btn.dataset.permission = p;
    if (p === 'denied') btn.title = 'Notifications are blocked for this page: allow them in the browser\'s site settings';
  };
  btn.addEventListener('click', async () => {
    try { await window.Notification.requestPermission(); } finally { label(); }
  });
  label();
  bar.append(btn);

  return (title, body, tag) => {
    if (!supported || window.Notification.permission !== 'granted') return;
    if (document.visibilityState === 'visible' && document.hasFocus()) return;
    const n = new window.Notification(title, { body: (body || '').slice(0, 200), tag });
    n.onclick = () => { window.focus(); n.close(); };
  };
}
