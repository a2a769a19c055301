// CSV for people's spreadsheets (activity and payout exports).

/** One CSV cell: RFC 4180 quoting, and a leading ' on text a spreadsheet would run as a formula. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
