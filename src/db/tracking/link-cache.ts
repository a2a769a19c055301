// Referral links with their programs, kept for under a second: the click's lookup is then one
// statement less for a link that is being clicked. A change made through this process is seen
// at once (every statement that changes what a click reads calls `linksChanged`); a change made
// by another instance within the cache's lifetime (at most a second, by configuration).
import { performance } from 'node:perf_hooks';

/** More entries than this and the oldest is dropped first. */
const MAX_ENTRIES = 10_000;

let generation = 0;

/** Forgets every cached link of this process (over-forgetting is harmless: the next click reads). */
export const linksChanged = (): void => {
  generation += 1;
};

export interface LinkCacheOptions {
  /** How long an entry is believed, in milliseconds; 0 turns the cache off. */
  ttlMs: number;
  /** Monotonic milliseconds; injectable so tests do not wait on the clock. */
  now?: () => number;
}

interface Entry<T> {
  value: T;
  readAt: number;
  generation: number;
}

export class LinkCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly now: () => number;

  constructor(private readonly options: LinkCacheOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * The cached value, or `load`'s (kept when not null). The entry is dated and numbered from
   * before the read, so a change committed while it ran is never taken for newer than the read.
   */
  async read(shortLink: string, load: () => Promise<T | null>): Promise<T | null> {
    const entry = this.entries.get(shortLink);
    const now = this.now();
    if (entry) {
      const age = now - entry.readAt;
      if (entry.generation === generation && age >= 0 && age < this.options.ttlMs) return entry.value;
      this.entries.delete(shortLink);
    }
    const before = generation;
    const value = await load();
    if (value !== null && this.options.ttlMs > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(shortLink, { value, readAt: now, generation: before });
    }
    return value;
  }
}
