// How fast deliveries are being received (new events and redeliveries), as the workers learn it
// from the intake's wake-ups (each says how many deliveries it stands for). Above a rate, the
// workers leave the cores to the intake: one fetcher keeps draining, a batch at a time with a
// pause between, and the others wait until the burst is over (README, "AFFIX_WORKER_YIELD_ABOVE").
// The acknowledgement is what the processor waits for; a sale can follow a second later.

/** During a burst, the one fetcher still draining pauses this long between batches (32 a batch: about 100 events/s). */
export const BURST_PAUSE_MS = 300;

const SLOTS = 10;
const SLOT_MS = 100;

/** Deliveries received over the last second, in ten slots of 100 ms. */
export class IntakeRate {
  private readonly counts = new Array<number>(SLOTS).fill(0);
  private slot = 0;

  /** Counts `events` received at `nowMs`. */
  add(events: number, nowMs: number): void {
    this.advance(nowMs);
    this.counts[this.slot % SLOTS]! += events;
  }

  /** Deliveries received in the last second as of `nowMs`. */
  perSecond(nowMs: number): number {
    this.advance(nowMs);
    return this.counts.reduce((sum, count) => sum + count, 0);
  }

  private advance(nowMs: number): void {
    const current = Math.floor(nowMs / SLOT_MS);
    if (current <= this.slot) return;
    // Slots passed since the last event are empty; after a second or more, all of them.
    for (let s = Math.max(this.slot + 1, current - SLOTS + 1); s <= current; s++) this.counts[s % SLOTS] = 0;
    this.slot = current;
  }
}

/** Whether the workers beyond the first wait: the intake is receiving more than `threshold` deliveries a second (0: never). */
export const intakeBusy = (rate: IntakeRate, threshold: number, nowMs: number): boolean => threshold > 0 && rate.perSecond(nowMs) > threshold;

/**
 * What a wake-up carries: the new events it stands for (the workers fetch them) and the
 * deliveries received, redeliveries included (what the intake is busy with). `"32"` says 32 of
 * each; `"0 32"` says 32 redeliveries and nothing to fetch; a wake-up without a count (older
 * versions', or a statement's own `notifyIfJobs`) stands for one new event. Redeliveries count
 * for the rate: a processor retrying a backlog keeps the API as busy as new events do, and its
 * acknowledgements wait just the same.
 */
export interface Wake {
  newEvents: number;
  received: number;
}

/** The payload for `newEvents` new events among `received` deliveries. */
export const wakePayload = (wake: Wake): string => (wake.newEvents === wake.received ? String(wake.received) : `${wake.newEvents} ${wake.received}`);

/** Reads a wake-up's payload (anything unreadable stands for one new event). */
export const readWake = (payload: string | undefined): Wake => {
  const match = /^(\d+)(?: (\d+))?$/.exec(payload ?? '');
  const newEvents = Number(match?.[1]);
  if (!Number.isSafeInteger(newEvents)) return { newEvents: 1, received: 1 };
  const received = Number(match?.[2] ?? newEvents);
  // Fewer deliveries than new events (or none) cannot be: the new events alone, at least one.
  if (!Number.isSafeInteger(received) || received < Math.max(newEvents, 1)) return { newEvents: Math.max(newEvents, 1), received: Math.max(newEvents, 1) };
  return { newEvents, received };
};
