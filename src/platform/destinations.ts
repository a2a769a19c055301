// Where a brand's webhook may be sent: only a global unicast address of another host. Ranges
// come from a maintained classifier (ipaddr.js); an IPv6 address that carries an IPv4 one
// (mapped, compatible, NAT64, 6to4, Teredo) is judged by what it carries, and the addresses of
// this host's own interfaces are refused whatever their range (an endpoint on the host's public
// address reached Affix's own admin API).
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

const word = (range: string) => range.replace(/([A-Z])/g, ' $1').toLowerCase();

/** The IPv4 addresses an IPv6 address carries, by the forms that route to them. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = v6.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return [v4(p[6]!, p[7]!)];
  // IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks); :: and ::1 are their own ranges.
  if (p.slice(0, 6).every((part) => part === 0)) return [v4(p[6]!, p[7]!)];
  // NAT64 well-known prefix 64:ff9b::/96: the last 32 bits.
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((part) => part === 0)) return [v4(p[6]!, p[7]!)];
  if (range === '6to4') return [v4(p[1]!, p[2]!)];
  // Teredo: the server in bits 32-63, the client obscured (inverted) in the last 32.
  if (range === 'teredo') return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  return [];
}

/** Every address of this host's interfaces, as ipaddr.js normalizes them. */
export function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      const address = entry.address.split('%')[0]!;
      if (ipaddr.isValid(address)) own.add(ipaddr.process(address).toNormalizedString());
    }
  }
  return own;
}

/**
 * Why a webhook must not be sent to this address, or null when it may: a global unicast
 * address that is not one of this host's. Anything unparsable is refused.
 */
export function addressProblem(address: string, own: Set<string> = ownAddresses()): string | null {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  if (!ipaddr.isValid(bare)) return 'is not an IP address';
  const parsed = ipaddr.parse(bare);
  if (own.has(ipaddr.process(bare).toNormalizedString())) return "is an address of this host";
  if (parsed.kind() === 'ipv6') {
    const carried = embeddedIPv4(parsed as ipaddr.IPv6);
    for (const v4 of carried) {
      const problem = addressProblem(v4.toString(), own);
      if (problem) return `carries ${v4.toString()}, which ${problem}`;
    }
    if (carried.length) return null;
    // A special range that carries no IPv4 address (NAT64's local-use prefix among them) is never reached.
    const range = parsed.range();
    return range === 'unicast' ? null : `is a ${word(range)} address`;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `is a ${word(range)} address`;
}
