// Text PostgreSQL cannot store: one rule for the request guard and for the cells of an imported file.

// A surrogate half without its partner: a high one not followed by a low one, or a lone low one.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text cannot be stored as PostgreSQL text, or null when it can. */
export function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (UNPAIRED_SURROGATE.test(text)) return 'contains an unpaired surrogate (invalid Unicode)';
  return null;
}
