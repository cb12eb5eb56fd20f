// The permission dialog for requests that are questions to the user
// (meta.kind of permission_request): a plan to approve (ExitPlanMode) and
// the model's multiple-choice questions (AskUserQuestion). Both are
// answered through the same permissions endpoint: allow_once with `mode`
// (the plan) or `answers` (question text -> chosen labels or free text),
// deny with the note as feedback. An MCP server's question (elicitation)
// is a form built from its schema, or a page to open in URL mode: accept
// is allow_once with the values as updated_input (the server checks them
// against the form and names a wrong field), decline is deny, cancel is
// cancel. Its text comes from the server: it is only ever set as text.
import { el, renderMarkdown } from './render.js';

export function kindOf(q) {
  return q?.meta?.kind || '';
}

// render fills the dialog's detail for q and returns what the dialog's
// buttons say and how to read the answer's extra fields.
export function renderInteraction(q, detail) {
  const kind = kindOf(q);
  if (kind === 'elicitation') return renderElicitation(q, detail);
  if (kind === 'plan_approval') {
    const plan = el('div', { class: 'plan' });
    renderMarkdown(plan, q.input?.plan || '');
    detail.replaceChildren(plan);
    return {
      title: 'Approve the plan?', once: 'Approve, ask before edits', always: 'Approve, accept edits', deny: 'Keep planning',
      note: 'Feedback for the agent (when you keep planning)',
      body: (decision) => decision === 'allow_always' ? { decision: 'allow_once', mode: 'acceptEdits' }
        : decision === 'allow_once' ? { decision: 'allow_once', mode: 'normal' } : { decision },
    };
  }
  const questions = q.input?.questions || [];
  const form = el('div', { class: 'questions' });
  const readers = questions.map((qq, i) => {
    const type = qq.multiSelect ? 'checkbox' : 'radio';
    const name = `q${i}`;
    const boxes = (qq.options || []).map((o) => {
      const input = el('input', { type, name, value: o.label });
      return { input, row: el('label', { class: 'option' }, input, ' ', el('strong', {}, o.label), o.description ? ' — ' + o.description : '') };
    });
    const other = el('input', { type: 'text', placeholder: 'Other: type your own answer', 'aria-label': `Other answer to: ${qq.question}`, class: 'other' });
    form.append(el('fieldset', {}, el('legend', {}, qq.header ? `${qq.header}: ${qq.question}` : qq.question), ...boxes.map((b) => b.row), other));
    return () => {
      if (other.value.trim()) return other.value.trim();
      return boxes.filter((b) => b.input.checked).map((b) => b.input.value).join(', ');
    };
  });
  detail.replaceChildren(form);
  return {
    title: 'The agent asks', once: 'Answer', always: '', deny: 'Skip',
    note: 'Note for the agent (when you skip)',
    body: (decision) => {
      if (decision === 'deny') return { decision };
      const answers = {};
      questions.forEach((qq, i) => { const a = readers[i](); if (a) answers[qq.question] = a; });
      return { decision: 'allow_once', answers };
    },
  };
}

// httpURL is u when it is an http(s) URL (a link may open nothing else).
function httpURL(u) {
  try {
    const p = new URL(u);
    return p.protocol === 'https:' || p.protocol === 'http:' ? p.href : '';
  } catch { return ''; }
}

function renderElicitation(q, detail) {
  const e = q.input || {};
  const title = `MCP server ${e.server || ''} asks`;
  const message = el('p', { class: 'elicit-message', text: e.message || '' });
  const answer = (values) => (decision) => decision === 'allow_once' ? { decision, updated_input: values() }
    : decision === 'allow_always' ? { decision: 'cancel' } : { decision: 'deny' };
  const labels = { title, once: 'Accept', always: 'Cancel', deny: 'Decline', note: 'Note (kept here; the server is only told you declined)' };
  if (e.mode === 'url') {
    const href = httpURL(e.url);
    const link = href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'elicit-url', text: e.url })
      : el('code', { class: 'elicit-url', text: e.url || '' });
    detail.replaceChildren(message, el('p', {}, 'Open this page, then accept: ', link));
    return { ...labels, body: answer(() => undefined) };
  }
  const props = e.schema?.properties || {};
  const required = new Set(e.schema?.required || []);
  const form = el('div', { class: 'elicit-form' });
  const readers = [];
  for (const [name, p] of Object.entries(props)) {
    const id = 'elicit-' + readers.length;
    const label = el('label', { for: id }, p.title || name, required.has(name) ? ' *' : '');
    const src = p.type === 'array' ? (p.items || {}) : p;
    const alts = src.oneOf || src.anyOf;
    const choices = alts ? alts.map((c) => [c.const, c.title || c.const])
      : (src.enum || []).map((v, i) => [v, src.enumNames?.[i] || v]);
    let input, read;
    if (p.type === 'array') {
      const picked = new Set(Array.isArray(p.default) ? p.default.map(String) : []);
      const boxes = choices.map(([v, t], i) => {
        const box = el('input', { type: 'checkbox', id: id + '-' + i, name, value: String(v) });
        box.checked = picked.has(String(v));
        return [box, el('label', { class: 'option', for: id + '-' + i }, box, ' ', String(t))];
      });
      input = el('span', { id, role: 'group' }, ...boxes.map(([, l]) => l));
      read = () => boxes.filter(([b]) => b.checked).map(([b]) => b.value);
    } else if (p.type === 'boolean') {
      input = el('input', { id, type: 'checkbox', name });
      input.checked = p.default === true;
      read = () => input.checked;
    } else if (choices.length) {
      input = el('select', { id, name });
      if (p.default === undefined) input.append(el('option', { value: '', text: '(choose)' }));
      for (const [v, t] of choices) input.append(el('option', { value: String(v), text: String(t) }));
      if (p.default !== undefined) input.value = String(p.default);
      read = () => input.value === '' ? undefined : input.value;
    } else {
      const numeric = p.type === 'number' || p.type === 'integer';
      input = el('input', { id, name, type: numeric ? 'number' : 'text', step: p.type === 'integer' ? '1' : numeric ? 'any' : undefined });
      if (p.default !== undefined) input.value = String(p.default);
      read = () => {
        const v = input.value.trim();
        if (v === '') return undefined;
        if (!numeric) return input.value;
        const n = Number(v);
        return Number.isNaN(n) ? v : n; // the server names a value that is not a number
      };
    }
    const row = el('div', { class: 'elicit-field' }, label, ' ', input);
    if (p.description) row.append(el('div', { class: 'hint', text: p.description }));
    form.append(row);
    readers.push([name, read]);
  }
  detail.replaceChildren(message, form);
  return {
    ...labels,
    body: answer(() => {
      const values = {};
      for (const [name, read] of readers) { const v = read(); if (v !== undefined) values[name] = v; }
      return values;
    }),
  };
}
