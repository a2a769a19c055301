// Exit codes of the `affix` client commands (documented in the README).
export const EXIT = {
  ok: 0,
  failure: 1, // network error, 5xx, anything unexpected
  usage: 2, // bad flags or arguments, or a refused local action
  auth: 3, // 401/403: log in again, or fix the API key
  rateLimited: 4, // 429 after one wait of Retry-After
  rejected: 5, // 400/404/409/410/422: the API refused the request as sent
} as const;

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
    this.name = 'CliError';
  }
}

export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 429) return EXIT.rateLimited;
  if (status >= 400 && status < 500) return EXIT.rejected;
  return EXIT.failure;
}
