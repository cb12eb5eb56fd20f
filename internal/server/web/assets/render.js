// DOM builders for the conversation: markdown text, thinking, tool cards,
// diffs. Everything model- or tool-produced goes through textContent or
// the sanitising markdown renderer, never raw innerHTML.
import { Marked } from './vendor/marked.esm.js';

const escapeHTML = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const safeURL = (u) => /^(https?:|mailto:|#|\/(?!\/))/i.test(u || '');

const md = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML in model output is shown as text, not interpreted.
    html(token) { return escapeHTML(token.text || token.raw || ''); },
    link(token) {
      const text = this.parser.parseInline(token.tokens);
      if (!safeURL(token.href)) return text;
      return `<a href="${escapeHTML(token.href)}" target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    // Images are not fetched: the page must not call out on the model's say.
    image(token) { return `<span class="img-alt">[image: ${escapeHTML(token.text || token.href || '')}]</span>`; },
  },
});

export function el(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') n.className = v;
    else if (k === 'text') n.textContent = v;
    else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else n.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c != null) n.append(c);
  return n;
}

export function renderMarkdown(node, text) {
  node.innerHTML = md.parse(text || '');
}

export function userBubble(text) {
  return el('div', { class: 'msg user' }, el('div', { class: 'bubble', text }));
}

// A markdown block that re-renders at most every 30 ms while streaming.
export function textBlock() {
  const node = el('div', { class: 'md' });
  let text = '';
  let pending = false;
  return {
    node,
    append(t) {
      text += t;
      if (pending) return;
      pending = true;
      // A timer rather than requestAnimationFrame: frames pause in hidden
      // tabs, and the text must be complete when the tab is shown again.
      setTimeout(() => { pending = false; renderMarkdown(node, text); }, 30);
    },
    set(t) { text = t; renderMarkdown(node, text); },
  };
}

export function thinkingBlock() {
  const body = el('div', { class: 'thinking-body' });
  const node = el('details', { class: 'thinking' }, el('summary', { text: 'Thinking' }), body);
  return { node, append(t) { body.textContent += t; }, set(t) { body.textContent = t; } };
}

function inputSummary(name, input) {
  if (!input || typeof input !== 'object') return '';
  return input.command || input.file_path || input.path || input.pattern || input.url || input.description || '';
}

export function diffView(diff) {
  const pre = el('pre', { class: 'diff' });
  for (const line of diff.split('\n')) {
    let cls = '';
    if (line.startsWith('+++') || line.startsWith('---')) cls = 'meta';
    else if (line.startsWith('+')) cls = 'add';
    else if (line.startsWith('-')) cls = 'del';
    else if (line.startsWith('@@')) cls = 'hunk';
    pre.append(el('span', { class: cls, text: line + '\n' }));
  }
  return pre;
}

// A collapsible tool-call card: input, live output, result, diff.
export function toolCard(name, input) {
  const status = el('span', { class: 'tool-status running', text: 'running' });
  const summary = inputSummary(name, input);
  const inputPre = el('pre', { class: 'tool-input', text: JSON.stringify(input ?? {}, null, 2) });
  const inputBox = el('div', { class: 'tool-input-box' }, el('div', { class: 'label', text: 'Input' }), inputPre);
  const live = el('pre', { class: 'tool-live', hidden: true });
  const result = el('div', { class: 'tool-result' });
  // A sub-agent's own steps (events with this call's parent_tool_use_id).
  const kids = el('div', { class: 'tool-children', hidden: true });
  let lastText = null;
  const node = el('details', { class: 'tool-card' },
    el('summary', {}, el('span', { class: 'tool-name', text: name }), el('span', { class: 'tool-arg', text: summary }), status),
    el('div', { class: 'tool-body' }, inputBox, live, kids, result));
  return {
    node,
    child(n) {
      if (kids.hidden) { kids.hidden = false; kids.prepend(el('div', { class: 'label', text: 'Sub-agent' })); }
      kids.append(n);
      lastText = null;
    },
    childText(text) {
      if (!lastText) { const n = el('div', { class: 'sub-text' }); this.child(n); lastText = n; }
      lastText.textContent += text;
    },
    output(chunk, stream) {
      live.hidden = false;
      live.append(el('span', { class: stream === 'stderr' ? 'stderr' : '', text: chunk }));
      live.scrollTop = live.scrollHeight;
    },
    finish(output, isError, diff) {
      status.textContent = isError ? 'error' : 'done';
      status.className = 'tool-status ' + (isError ? 'error' : 'ok');
      result.replaceChildren();
      if (diff) {
        // The diff says what the input did; its JSON would only repeat it.
        // Live and reloaded alike (the stored tool_result keeps the diff).
        inputBox.hidden = true;
        result.append(el('div', { class: 'label', text: 'Changes' }), diffView(diff));
        node.open = true;
      }
      if (output) {
        result.append(el('div', { class: 'label', text: isError ? 'Error' : 'Result' }),
          el('pre', { class: 'tool-output' + (isError ? ' is-error' : ''), text: output }));
      }
    },
    waiting(on) {
      if (on) { status.textContent = 'needs approval'; status.className = 'tool-status ask'; }
    },
    denied() { status.textContent = 'denied'; status.className = 'tool-status error'; },
  };
}

export function notice(text, kind = 'info') {
  return el('div', { class: 'notice ' + kind, role: kind === 'error' ? 'alert' : undefined, text });
}

export function todoList(todos) {
  const ul = el('ul', { class: 'todos' });
  for (const t of todos || []) {
    ul.append(el('li', { class: 'todo ' + t.status, text: (t.status === 'completed' ? '✓ ' : t.status === 'in_progress' ? '▸ ' : '○ ') + t.content }));
  }
  return el('div', { class: 'todo-box' }, el('div', { class: 'label', text: 'Tasks' }), ul);
}
