// Requests by Host (docs/domains.md): the service's own host goes on as ever; a brand's portal
// host serves only the partner portal and its program's apply page; a brand's links host only
// redirects its program's codes; any other host gets a plain 404 that names nothing.
import type { NextFunction, Request, Response } from 'express';
import type { BrandHostRouter, HostOwner } from '../app/programs/domains.js';
import { linkTarget } from '../app/programs/domains.js';
import type { Pool } from '../db/infra/pool.js';

/** The brand whose host served this request (res.locals), absent on the service's own host. */
export const hostOwnerOf = (res: Response): HostOwner | undefined => res.locals.brandHost as HostOwner | undefined;

const PORTAL_PATHS = /^\/(?:portal(?:\/.*)?|apply\/[^/]+(?:\/[^/]+)?)$/;

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
};

const plainNotFound = (res: Response) => void res.status(404).type('text/plain').setHeader('Cache-Control', 'no-store').send('Not found\n');

/** The service's own host names: AFFIX_PUBLIC_URL's, and the machine's own for health checks and development. */
export const serviceHosts = (publicUrl: string) => new Set([new URL(publicUrl).hostname.toLowerCase(), 'localhost', '127.0.0.1', '[::1]']);

/** The host name a raw request names (a proxy's X-Forwarded-Host first), without its port. */
export function requestHostname(headers: { host?: string; 'x-forwarded-host'?: string | string[] }): string {
  const forwarded = headers['x-forwarded-host'];
  const value = ((Array.isArray(forwarded) ? forwarded[0] : forwarded) ?? headers.host ?? '').split(',')[0]!.trim().toLowerCase();
  return value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.split(':')[0]!;
}

export function brandHosts(pool: Pool, hosts: BrandHostRouter, publicUrl: string) {
  const own = serviceHosts(publicUrl);
  return async (req: Request, res: Response, next: NextFunction) => {
    const host = (req.hostname ?? '').toLowerCase();
    if (own.has(host) || !(await hosts.anyHost())) return next();
    const owner = host ? await hosts.owner(host) : null;
    if (!owner) return plainNotFound(res);
    if (owner.kind === 'links') {
      const code = req.method === 'GET' || req.method === 'HEAD' ? /^\/([^/]+)$/.exec(req.path)?.[1] : undefined;
      const target = code ? await linkTarget({ pool }, owner.programId, decoded(code)) : null;
      if (!target) return plainNotFound(res);
      res.setHeader('Cache-Control', 'no-store');
      return void res.redirect(302, target);
    }
    if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD')) return void res.redirect(302, '/portal');
    if (!PORTAL_PATHS.test(req.path)) return plainNotFound(res);
    res.locals.brandHost = owner;
    next();
  };
}

/**
 * GET /brand-hosts/check?domain=<host> on the service's own host: 200 when a program holds the
 * host, else 404. The reverse proxy asks it before getting a certificate on demand (Caddy's `ask`).
 */
export function brandHostCheck(hosts: BrandHostRouter) {
  return async (req: Request, res: Response) => {
    const domain = typeof req.query.domain === 'string' ? req.query.domain.toLowerCase() : '';
    const known = domain.length > 0 && domain.length <= 253 && (await hosts.owner(domain)) !== null;
    res.status(known ? 200 : 404).type('text/plain').send(known ? 'OK\n' : 'Not found\n');
  };
}
