// A worker job's tracking transaction, held open after the core's work returns: the job writes
// the event's outcome in it, so the sale and the inbox row that says so commit together (one
// commit, one WAL flush per event instead of two).
import type { Transactions, TrackingTx } from '../../core/ports.js';
import { type OpenTransaction, type Pool, type PoolClient, openTransaction, runToCommit } from '../infra/pool.js';
import { PgTrackingTx } from './tracking-tx.js';

export class HeldTransaction implements Transactions {
  private held: OpenTransaction | null = null;

  constructor(private readonly pool: Pool) {}

  /** The core's unit of work: committed by `finish`, not when `fn` returns; rolled back at once when it throws. */
  async transaction<T>(fn: (tx: TrackingTx) => Promise<T>): Promise<T> {
    // Each processor use case opens exactly one; a second would commit apart from the first.
    if (this.held) throw new Error('a job holds one tracking transaction at a time');
    const transaction = await openTransaction(this.pool);
    try {
      const result = await fn(new PgTrackingTx(transaction.client));
      this.held = transaction;
      return result;
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
  }

  /**
   * `write` in the held transaction, then its commit. With none held (the use case wrote
   * nothing, or rolled back), `write` runs on its own.
   */
  async finish<T>(write: (db: Pool | PoolClient) => Promise<T>): Promise<T> {
    const held = this.held;
    this.held = null;
    if (!held) return write(this.pool);
    return runToCommit(held, write);
  }

  /** The job failed before finishing: nothing of the held transaction is kept. */
  async abandon(): Promise<void> {
    const held = this.held;
    this.held = null;
    await held?.rollback();
  }
}
