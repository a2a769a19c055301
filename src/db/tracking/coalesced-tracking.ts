// Several events of a worker's batch attributed at once in its one transaction: each event runs
// the core's use case as usual, and the calls they make while the others wait are sent together
// (the same call of every event as one statement where PgTrackingTx has it for many; the others
// one after another). Only for events that read nothing another of them writes
// (src/core/fact-keys.ts); a customer row two of them reach anyway spoils the batch, which its
// owner then runs one event at a time.
import type { TrackingTx } from '../../core/ports.js';
import type { PgTrackingTx } from './tracking-tx.js';

/** Raised into an event's use case: what it did cannot be done beside the other events. */
export class NotAtOnce extends Error {
  constructor(why: string) {
    super(`events attributed at once: ${why}`);
    this.name = 'NotAtOnce';
  }
}

interface Call {
  event: number;
  method: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Each = (calls: unknown[][]) => Promise<unknown[]>;

/** Calls whose arguments or result name a customer row, and where. */
const CUSTOMER_ARGUMENT: Record<string, number> = { updateCustomer: 0, saleHistory: 0, fraudFacts: 0, bindProcessorCustomerIfFree: 1 };
const CUSTOMER_RESULT = new Set(['insertCustomer', 'findCustomerByKey', 'findCustomerByClickId', 'findCustomerByEmailHash', 'findCustomerByProcessorCustomer']);

export class CoalescedTracking {
  private queue: Call[] = [];
  private scheduled = false;
  /** The event that reached each customer row first. */
  private readonly customerOwners = new Map<number, number>();

  constructor(private readonly tx: PgTrackingTx) {}

  /** The tracking transaction one event's use case runs on. */
  forEvent(event: number): TrackingTx {
    return new Proxy({} as TrackingTx, {
      get: (_target, method) => {
        // Not a thenable, and nothing but the port's methods.
        if (typeof method !== 'string' || method === 'then') return undefined;
        return (...args: unknown[]) => this.call(event, method, args);
      },
    });
  }

  private call(event: number, method: string, args: unknown[]): Promise<unknown> {
    // A savepoint's rollback would take the other events' statements with it.
    if (method === 'withSavepoint') return Promise.reject(new NotAtOnce('a savepoint'));
    // Caps read what the commissions before them used: events beside each other would not see each other's.
    if (method === 'lockRewardCaps') return Promise.reject(new NotAtOnce('reward caps'));
    return new Promise((resolve, reject) => {
      this.queue.push({ event, method, args, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After every event has run up to its next call (their continuations are microtasks).
      setImmediate(() => void this.flush());
    });
  }

  /** Sends what the events are waiting on, then lets them all go on. */
  private async flush(): Promise<void> {
    const calls = this.queue;
    this.queue = [];
    this.scheduled = false;
    const byMethod = new Map<string, Call[]>();
    for (const call of calls) {
      const group = byMethod.get(call.method);
      if (group) group.push(call);
      else byMethod.set(call.method, [call]);
    }
    const settled: { call: Call; ok: boolean; value: unknown }[] = [];
    for (const [method, group] of byMethod) {
      const each = (this.tx.each as unknown as Record<string, Each | undefined>)[method];
      if (each && group.length > 1) {
        try {
          const results = await each(group.map((call) => call.args));
          group.forEach((call, i) => settled.push({ call, ok: !(results[i] instanceof Error), value: results[i] }));
        } catch (error) {
          for (const call of group) settled.push({ call, ok: false, value: error });
        }
        continue;
      }
      for (const call of group) {
        try {
          const value = await (this.tx as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!(...call.args);
          settled.push({ call, ok: true, value });
        } catch (error) {
          settled.push({ call, ok: false, value: error });
        }
      }
    }
    for (const { call, ok, value } of settled) {
      const conflict = ok ? this.claimCustomers(call, value) : null;
      if (conflict) call.reject(conflict);
      else if (ok) call.resolve(value);
      else call.reject(value);
    }
  }

  /** Two events reaching one customer row would each decide without the other's change. */
  private claimCustomers(call: Call, result: unknown): NotAtOnce | null {
    const ids: number[] = [];
    const argument = CUSTOMER_ARGUMENT[call.method];
    if (argument !== undefined) ids.push(call.args[argument] as number);
    if (call.method === 'insertSale') ids.push((call.args[0] as { customerId: number }).customerId);
    if (CUSTOMER_RESULT.has(call.method) && result) ids.push((result as { id: number }).id);
    if (call.method === 'findClickCustomer') {
      const existing = (result as { existing: { id: number } | null }).existing;
      if (existing) ids.push(existing.id);
    }
    for (const id of ids) {
      const owner = this.customerOwners.get(Number(id));
      if (owner !== undefined && owner !== call.event) return new NotAtOnce(`two events reached customer ${id}`);
      this.customerOwners.set(Number(id), call.event);
    }
    return null;
  }
}
