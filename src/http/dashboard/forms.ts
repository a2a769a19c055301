// Form values -> the core's program input, and core messages -> the field they are about.
import { AffixError } from '../../core/errors.js';


const numberOrText = (value: unknown) => {
  const text = String(value ?? '').trim();
  if (text === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
};

export function programInput(form: Record<string, unknown>): Record<string, unknown> {
  const text = (name: string) => (form[name] === undefined ? undefined : String(form[name]).trim());
  return {
    name: text('name'),
    domain: text('domain'),
    commission_type: text('commission_type'),
    commission_rate: numberOrText(form.commission_rate),
    attribution_window_days: numberOrText(form.attribution_window_days),
    lead_auth: text('lead_auth') || undefined,
    allowed_origins: form.allowed_origins === undefined ? undefined : String(form.allowed_origins).split(/[\s,]+/).filter(Boolean),
    duration_months: numberOrText(form.duration_months) ?? null,
  };
}

/**
 * Puts each validation message beside the field it names (the error's `fields`). `aliases`
 * maps request field names to this form's.
 */
export function fieldErrors(error: unknown, aliases: Record<string, string> = {}): Record<string, string> {
  if (!(error instanceof AffixError) || (error.status !== 400 && error.status !== 409)) throw error;
  const named = error.init.fields ?? { form: error.message };
  return Object.fromEntries(Object.entries(named).map(([field, message]) => [aliases[field] ?? field, inWords(field, message)]));
}

/**
 * Beside its field a message need not name the field: "commission_rate must be a positive
 * number" reads "Must be a positive number."
 */
function inWords(field: string, message: string): string {
  const rest = message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  const sentence = rest.charAt(0).toUpperCase() + rest.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
