// The permission dialog for requests that are questions to the user
// (meta.kind of permission_request): a plan to approve (ExitPlanMode) and
// the model's multiple-choice questions (AskUserQuestion). Both are
// answered through the same permissions endpoint: allow_once with `mode`
// (the plan) or `answers` (question text -> chosen labels or free text),
// deny with the note as feedback.
import { el, renderMarkdown } from './render.js';

export function kindOf(q) {
  return q?.meta?.kind || '';
}

// render fills the dialog's detail for q and returns what the dialog's
// buttons say and how to read the answer's extra fields.
export function renderInteraction(q, detail) {
  const kind = kindOf(q);
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
