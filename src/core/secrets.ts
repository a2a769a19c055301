// Random identifiers and one-way digests. node:crypto does the work; nothing is hand-rolled.
import { createHash, randomBytes } from 'node:crypto';

/**
 * Random bytes drawn from a block fetched 4 KiB at a time (as node:crypto does for randomUUID):
 * one call into the system's generator per 256 click ids instead of one each. No byte is handed
 * out twice.
 */
const RANDOM_BLOCK = 4096;
let block = Buffer.alloc(0);
let used = 0;
function freshBytes(size: number): Buffer {
  if (used + size > block.length) {
    block = randomBytes(RANDOM_BLOCK);
    used = 0;
  }
  used += size;
  return block.subarray(used - size, used);
}

export const newClickId = (): string => `clk_${freshBytes(16).toString('base64url')}`;

/** A program API key: 24 random bytes, so a plain SHA-256 digest is a safe way to store it. */
export const newApiKey = (): string => `affix_sk_${randomBytes(24).toString('base64url')}`;

export const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Emails are matched, never read back: stored as SHA-256 of the trimmed, lower-cased address. */
export const hashEmail = (email: string): Buffer => sha256(email.trim().toLowerCase());

export const maskKey = (prefix: string, lastFour: string): string => `${prefix}…${lastFour}`;
