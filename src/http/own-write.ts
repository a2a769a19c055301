// Whether a page shows the caller's own write: the page a form redirects to (`?done=…`) or a
// form's own answer (not a GET). Such pages read the primary (src/app/reads.ts); others may read a replica.
import type { Request } from 'express';

export const showsOwnWrite = (req: Request): boolean => (req.query as Record<string, unknown>).done !== undefined || req.method !== 'GET';
