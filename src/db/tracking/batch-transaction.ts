// Several worker jobs in one transaction: each job's use case and its outcome are written in it,
// and one commit keeps them all (one BEGIN, one COMMIT and one WAL flush for the batch instead
// of one per event). A use case that throws expects its writes rolled back, which one shared
// transaction cannot do for it alone: the batch is then spoiled, and its owner rolls it back
// and runs each job on its own. The pages' rollups are written once for the batch, just
// before its commit.
import type { Transactions, TrackingTx } from '../../core/ports.js';
import { applyBatchedRollups, beginBatchedRollups } from '../reads/page-rollups.js';
import { CoalescedTracking } from './coalesced-tracking.js';
import { type OpenTransaction, type Pool, type PoolClient, openTransaction } from '../infra/pool.js';
import { PgTrackingTx } from './tracking-tx.js';

export class BatchSpoiled extends Error {
  constructor(cause: unknown) {
    super('a job of the batch failed inside its transaction', { cause });
    this.name = 'BatchSpoiled';
  }
}

export class BatchTransaction implements Transactions {
  private open: OpenTransaction | null = null;
  private tracking: PgTrackingTx | null = null;
  /** Set once anything run in the batch threw: nothing of it may be committed. */
  private spoiledBy: unknown = null;

  constructor(private readonly pool: Pool) {}

  private opening: Promise<OpenTransaction> | null = null;

  /** The batch's connection, its transaction begun by the first caller (the events at once call it side by side). */
  private async client(): Promise<PoolClient> {
    if (this.spoiledBy !== null) throw new BatchSpoiled(this.spoiledBy);
    this.opening ??= this.begin();
    return (await this.opening).client;
  }

  private async begin(): Promise<OpenTransaction> {
    const open = await openTransaction(this.pool);
    try {
      await beginBatchedRollups(open.client);
    } catch (error) {
      await open.rollback();
      this.spoiledBy = error;
      throw error;
    }
    this.open = open;
    this.tracking = new PgTrackingTx(open.client);
    return open;
  }

  private async guarded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      this.spoiledBy ??= error;
      throw error;
    }
  }

  /** A use case's unit of work, in the batch's transaction (committed with the batch). */
  async transaction<T>(fn: (tx: TrackingTx) => Promise<T>): Promise<T> {
    await this.client();
    return this.guarded(() => fn(this.tracking!));
  }

  /**
   * Stores for `count` events attributed at once (their use cases running side by side, their
   * calls sent together: src/db/tracking/coalesced-tracking.ts), in the batch's transaction.
   */
  atOnce(count: number): Transactions[] {
    let coalesced: CoalescedTracking | null = null;
    return Array.from({ length: count }, (_, event) => ({
      transaction: async <T>(fn: (tx: TrackingTx) => Promise<T>): Promise<T> => {
        await this.client();
        coalesced ??= new CoalescedTracking(this.tracking!);
        return this.guarded(() => fn(coalesced!.forEvent(event)));
      },
    }));
  }

  /** Any other write of the batch (an event's outcome). */
  async write<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.client();
    return this.guarded(() => fn(client));
  }

  /** Commits what the batch wrote; throws (having rolled back) when spoiled or when the commit fails. */
  async commit(): Promise<void> {
    if (this.spoiledBy !== null) {
      await this.rollback();
      throw new BatchSpoiled(this.spoiledBy);
    }
    const open = this.open;
    this.open = null;
    this.opening = null;
    if (!open) return;
    try {
      await applyBatchedRollups(open.client);
    } catch (error) {
      await open.rollback();
      throw error;
    }
    await open.commit();
  }

  /** Never throws. */
  async rollback(): Promise<void> {
    const open = this.open;
    this.open = null;
    this.opening = null;
    await open?.rollback();
  }
}
