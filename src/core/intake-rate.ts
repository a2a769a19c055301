// How fast deliveries are being stored, as the workers learn it from the intake's wake-ups
// (each says how many events it stands for). Above a rate, the workers leave the cores to the
// intake: one fetcher keeps draining, a batch at a time with a pause between, and the others
// wait until the burst is over (README,
// "AFFIX_WORKER_YIELD_ABOVE"). The acknowledgement is what the processor waits for; a sale
// can follow a second later.

/** During a burst, the one fetcher still draining pauses this long between batches (32 a batch: about 100 events/s). */
export const BURST_PAUSE_MS = 300;

const SLOTS = 10;
const SLOT_MS = 100;

/** Events stored over the last second, in ten slots of 100 ms. */
export class IntakeRate {
  private readonly counts = new Array<number>(SLOTS).fill(0);
  private slot = 0;

  /** Counts `events` stored at `nowMs`. */
  add(events: number, nowMs: number): void {
    this.advance(nowMs);
    this.counts[this.slot % SLOTS]! += events;
  }

  /** Events stored in the last second as of `nowMs`. */
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

/** Whether the workers beyond the first wait: the intake is storing more than `threshold` events a second (0: never). */
export const intakeBusy = (rate: IntakeRate, threshold: number, nowMs: number): boolean => threshold > 0 && rate.perSecond(nowMs) > threshold;

/** The count a wake-up carries (older senders carry none: it counts as one event). */
export const eventsInWake = (payload: string | undefined): number => {
  const events = Number(payload);
  return payload && Number.isSafeInteger(events) && events > 0 ? events : 1;
};
