// Answers on the wire use snake_case names (the API's convention); use cases speak camelCase.
// Currency codes and other all-capital keys ({"USD": 5000}) stay as they are.
const snake = (key: string) => (/^[A-Z]+$/.test(key) ? key : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

export function wire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(wire);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snake(key), wire(inner)]));
}
