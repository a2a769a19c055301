// Concurrent webhook deliveries share statements: while a few statements are on their way, the
// events that arrive meanwhile wait and go together in the next one (one round trip, one commit
// for all of them: group commit, as PostgreSQL does it for commits). At a low rate every event
// goes alone and at once, so nothing waits that would not have waited anyway.
import type { Pool } from '../infra/pool.js';
import type { Wake } from '../../core/intake-rate.js';
import { type InboxJobQueue, type NewInboxEvent, type StoredEvent, storeEvent, storeEvents, wakeWorkers } from './inbound-events.js';

interface Waiting {
  event: NewInboxEvent;
  resolve: (stored: StoredEvent) => void;
  reject: (error: unknown) => void;
}

export interface InboxWriterOptions {
  /** Statements on their way at once; an event arriving while all are busy waits for the next. */
  inFlight: number;
  /** Events in one statement at most. */
  batch: number;
}

/** At 32 concurrent deliveries (`npm run bench:webhooks`): 1050 acks/s, against 700 with a statement per event. */
export const INBOX_WRITER_DEFAULTS: InboxWriterOptions = { inFlight: 4, batch: 32 };

export class InboxWriter {
  private readonly waiting: Waiting[] = [];
  private busy = 0;
  /** A wake-up on its way, and whether rows committed since it was sent (one more is owed). */
  private waking = false;
  /** New events and deliveries (redeliveries too) since the last wake-up was sent (none: nothing owed). */
  private wakeOwed: Wake = { newEvents: 0, received: 0 };

  constructor(
    private readonly pool: Pool,
    private readonly queue: InboxJobQueue,
    private readonly options: InboxWriterOptions = INBOX_WRITER_DEFAULTS,
  ) {}

  /** Stored with its job when this resolves (committed: the 2xx may be sent). */
  store(event: NewInboxEvent): Promise<StoredEvent> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ event, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.busy < this.options.inFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.batch);
      this.busy++;
      void this.write(batch).finally(() => {
        this.busy--;
        this.next();
      });
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const stored = await storeEvents(this.pool, this.queue, batch.map((waiting) => waiting.event));
        this.sendWake(stored);
        batch.forEach((waiting, i) => waiting.resolve(stored[i]!));
        return;
      } catch {
        // One refused payload (or any failure) is not the others' answer: each goes alone and
        // gets its own outcome (a payload jsonb cannot hold is then kept as bytes).
      }
    }
    await Promise.all(
      batch.map((waiting) =>
        storeEvent(this.pool, this.queue, waiting.event).then((stored) => {
          this.sendWake([stored]);
          waiting.resolve(stored);
        }, waiting.reject),
      ),
    );
  }

  /**
   * After the commit, not in it (see wakeWorkers): one NOTIFY at a time, and one more when rows
   * committed while it was on its way. Never awaited by a delivery; a failed one is left to polling.
   * Redeliveries are counted too (they tell the workers how busy the intake is) but wake no fetcher.
   */
  private sendWake(stored: StoredEvent[]): void {
    this.wakeOwed.newEvents += stored.filter((event) => !event.duplicate && event.status === 'queued').length;
    this.wakeOwed.received += stored.length;
    if (this.waking) return;
    this.waking = true;
    void (async () => {
      while (this.wakeOwed.received > 0) {
        const wake = this.wakeOwed;
        this.wakeOwed = { newEvents: 0, received: 0 };
        await wakeWorkers(this.pool, wake).catch(() => undefined);
      }
      this.waking = false;
    })();
  }
}
