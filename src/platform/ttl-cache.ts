// A small read-through cache with a time to live, for values every request reads and that
// change rarely (a program's sealed webhook secret). Never the only copy: PostgreSQL is.
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: K, load: (key: K) => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.until > this.now()) return hit.value;
    const value = await load(key);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
    return value;
  }

  forget(key: K): void {
    this.entries.delete(key);
  }
}
