// The form editor's rule (issue 44, item 1): the brand edits its application questions as rows
// (label, type, required, options), adds, removes and moves them; the result is stored as the
// same list of questions the API and the CLI write (src/core/partners.ts ApplicationField).
import { keyFromLabel } from './brand.js';
import { APPLICATION_FIELD_TYPES, type ApplicationField, type ApplicationFieldType } from './partners.js';

export const MAX_QUESTIONS = 20;
export const MAX_OPTIONS = 50;

/** A row as the editor posts it: `key` is empty for a new question (it is made from the label). */
export interface QuestionRow {
  key: string;
  label: string;
  type: string;
  required: boolean;
  /** One option a line (a select's). */
  options: string;
}

export type EditorAction = { kind: 'save' } | { kind: 'add' } | { kind: 'remove'; index: number } | { kind: 'up'; index: number } | { kind: 'down'; index: number };

/** "add", "remove:2", "up:0", "down:3", anything else is a save. */
export function readEditorAction(value: unknown): EditorAction {
  const [kind, at] = String(value ?? '').split(':');
  const index = Number(at);
  if (kind === 'add') return { kind };
  if ((kind === 'remove' || kind === 'up' || kind === 'down') && Number.isSafeInteger(index) && index >= 0) return { kind, index };
  return { kind: 'save' };
}

export const optionLines = (options: readonly string[] | undefined) => (options ?? []).join('\n');

/** The stored questions as the editor's rows. */
export const rowsOf = (fields: readonly ApplicationField[]): QuestionRow[] =>
  fields.map((f) => ({ key: f.key, label: f.label, type: f.type, required: f.required, options: optionLines(f.options) }));

/**
 * The rows after the action (the new row is added last; moves past an end change nothing),
 * then checked: the questions to store, or the problems keyed by the row's field names
 * (`label_<i>`, `type_<i>`, `options_<i>`; `new_label`… for the row being added).
 */
export function applyEditorAction(rows: readonly QuestionRow[], added: QuestionRow, action: EditorAction): { rows: QuestionRow[]; fields: ApplicationField[]; problems: Record<string, string> } {
  let next = [...rows];
  if (action.kind === 'remove') next.splice(action.index, 1);
  if (action.kind === 'up' && action.index > 0 && action.index < next.length) [next[action.index - 1], next[action.index]] = [next[action.index]!, next[action.index - 1]!];
  if (action.kind === 'down' && action.index + 1 < next.length) [next[action.index], next[action.index + 1]] = [next[action.index + 1]!, next[action.index]!];
  const problems: Record<string, string> = {};
  if (action.kind === 'add') {
    if (next.length >= MAX_QUESTIONS) problems.new_label = `At most ${MAX_QUESTIONS} questions: remove one first.`;
    else next = [...next, { ...added, key: '' }];
  }
  const taken = new Set(next.map((r) => r.key).filter((k) => /^[a-z][a-z0-9_]{0,39}$/.test(k)));
  const fields: ApplicationField[] = [];
  const seen = new Set<string>();
  next.forEach((row, i) => {
    const isNew = action.kind === 'add' && i === next.length - 1;
    const name = (field: string) => (isNew ? `new_${field}` : `${field}_${i}`);
    const label = row.label.trim();
    if (!label) problems[name('label')] = 'Give the question a label.';
    else if (label.length > 200) problems[name('label')] = 'A label is at most 200 characters.';
    const type = (APPLICATION_FIELD_TYPES as readonly string[]).includes(row.type) ? (row.type as ApplicationFieldType) : null;
    if (!type) problems[name('type')] = 'Choose a type.';
    const options = [...new Set(row.options.split(/\r?\n/).map((o) => o.trim()).filter(Boolean))];
    if (type === 'select' && options.length === 0) problems[name('options')] = 'A choice needs its options, one a line.';
    else if (options.length > MAX_OPTIONS) problems[name('options')] = `At most ${MAX_OPTIONS} options.`;
    else if (options.some((o) => o.length > 200)) problems[name('options')] = 'An option is at most 200 characters.';
    // A stored question keeps its key (its answers are stored under it); a new one takes it from its label.
    let key = /^[a-z][a-z0-9_]{0,39}$/.test(row.key) && !seen.has(row.key) ? row.key : '';
    if (!key) {
      key = keyFromLabel(label || 'question', taken);
      taken.add(key);
    }
    seen.add(key);
    next[i] = { ...row, key };
    fields.push({ key, label, type: type ?? 'text', required: row.required, ...(type === 'select' ? { options } : {}) });
  });
  return { rows: next, fields, problems };
}
