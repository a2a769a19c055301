// Form values -> the core's program input, and core messages -> the field they are about.
import { AffixError } from '../../core/errors.js';

export const PROGRAM_FIELDS = ['name', 'domain', 'commission_type', 'commission_rate', 'attribution_window_days', 'lead_auth', 'allowed_origins', 'duration_months'];

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

/** Puts a validation message next to the field it names (the first blank one for "Missing required fields"). */
export function fieldErrors(error: unknown, form: Record<string, unknown>): Record<string, string> {
  if (!(error instanceof AffixError) || error.status !== 400) throw error;
  const message = error.message;
  if (message.startsWith('Missing required fields')) {
    const blank = ['name', 'domain', 'commission_type', 'commission_rate'].find((name) => String(form[name] ?? '').trim() === '') ?? 'name';
    return { [blank]: 'This field is required.' };
  }
  const named = PROGRAM_FIELDS.map((name) => ({ name, at: message.indexOf(name) })).filter((f) => f.at >= 0).sort((a, b) => a.at - b.at)[0];
  return { [named?.name ?? 'name']: message };
}
