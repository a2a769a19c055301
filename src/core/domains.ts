// A brand's own host names: which are acceptable, and which address a partner is shown (the
// brand's host when it has one, the service's otherwise). Pure: the table is src/db/programs/domains.ts.
import { referralUrl } from './programs.js';

export const DOMAIN_KINDS = ['portal', 'links'] as const;
export type DomainKind = (typeof DOMAIN_KINDS)[number];

/** A program's hosts; null where it has none of that kind. */
export interface BrandHosts {
  portal: string | null;
  links: string | null;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host name as typed (any case, spaces around): lower-cased, or the reason it is refused. A
 * host only: no scheme, path or port, not an IP address, at least two labels, not the service's own.
 */
export function parseBrandHost(typed: string, serviceHost: string): { host: string } | { problem: string } {
  const host = typed.trim().toLowerCase().replace(/\.$/, '');
  if (!host) return { problem: 'Give a host name, like partners.example.com.' };
  if (/[/:?#@\s]/.test(host)) return { problem: 'Give the host name alone: no https://, path or port (like partners.example.com).' };
  if (host.length > 253) return { problem: 'A host name has at most 253 characters.' };
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return { problem: 'This is not a host name: letters, digits and hyphens, in parts joined by dots (like partners.example.com).' };
  if (/^\d+$/.test(labels.at(-1)!)) return { problem: 'Give a host name, not an IP address.' };
  if (host === serviceHost.toLowerCase()) return { problem: 'This is the service’s own host; give one of yours.' };
  return { host };
}

/** A brand host's address: always https (the reverse proxy in front holds its certificate; docs/domains.md). */
export const hostOrigin = (host: string) => `https://${host}`;

/** Where the partner portal's links (mailed sign-in links) point for this program: its portal host, or the service. */
export const portalBaseUrl = (publicUrl: string, portalHost: string | null) => (portalHost ? hostOrigin(portalHost) : publicUrl);

/**
 * A partner's short link as shown, copied and put in a QR code: on the brand's links host when it
 * has one (which answers with the referral URL), the referral URL itself otherwise.
 */
export function shownLinkUrl(program: { domain: string; linksHost: string | null }, code: string): string {
  return program.linksHost ? `${hostOrigin(program.linksHost)}/${encodeURIComponent(code)}` : referralUrl(program.domain, code);
}
