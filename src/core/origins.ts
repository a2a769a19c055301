// Browser routes are open only to origins listed in the program's settings (spec §5.6).
import { errors } from './errors.js';
import type { Program } from './types.js';

export const normalizeOrigin = (origin: string): string => origin.trim().replace(/\/+$/, '').toLowerCase();

export const originAllowed = (program: Pick<Program, 'allowedOrigins'>, origin: string): boolean =>
  program.allowedOrigins.some((allowed) => normalizeOrigin(allowed) === normalizeOrigin(origin));

/** A request without an Origin header is not a browser request and is not restricted. */
export function assertOriginAllowed(program: Program, origin: string | null): void {
  if (origin && !originAllowed(program, origin)) {
    throw errors.forbidden(`Origin ${origin} is not allowed for this program. Add it to the program's allowed origins.`);
  }
}
