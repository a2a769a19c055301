// Statement numbers: one gap-free series per account (the brand), a counter row taken in the
// transaction that marks a payout paid. docs/payouts.md, "Statements".
import type { IssuedNumber } from '../../core/statement-numbers.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/**
 * The payout's number, issued now from its account's series (the caller checks it has none:
 * src/app/money/statement-numbers.ts; a second one would break the unique payout_id). Run inside
 * the transaction that marks it paid: the series row stays locked until it commits (concurrent
 * payments of the brand wait their turn), and a rollback gives the number back.
 */
export async function issueStatementNumber(client: PoolClient, payoutId: number, at: Date): Promise<IssuedNumber> {
  const { rows } = await client.query(
    `WITH series AS (
       INSERT INTO statement_series AS s (account_id, last_number)
       SELECT pr.account_id, 1 FROM payouts p JOIN programs pr ON pr.id = p.program_id WHERE p.id = $1
       ON CONFLICT (account_id) DO UPDATE SET last_number = s.last_number + 1
       RETURNING s.account_id, s.last_number, s.prefix)
     INSERT INTO statement_numbers (account_id, number, payout_id, prefix, issued_at)
     SELECT account_id, last_number, $1, prefix, $2 FROM series
     RETURNING number, prefix, issued_at`,
    [payoutId, at],
  );
  const row = rows[0];
  if (!row) throw new Error(`payout ${payoutId} not found`);
  return { number: Number(row.number), prefix: row.prefix, issuedAt: row.issued_at };
}

export async function statementNumberOf(db: Queryable, payoutId: number): Promise<IssuedNumber | null> {
  const { rows } = await db.query('SELECT number, prefix, issued_at FROM statement_numbers WHERE payout_id = $1', [payoutId]);
  return rows[0] ? { number: Number(rows[0].number), prefix: rows[0].prefix, issuedAt: rows[0].issued_at } : null;
}

/** The account's prefix for numbers issued from now on ('' before any was set). */
export async function statementPrefix(db: Queryable, accountId: number): Promise<string> {
  const { rows } = await db.query('SELECT prefix FROM statement_series WHERE account_id = $1', [accountId]);
  return rows[0]?.prefix ?? '';
}

export async function setStatementPrefix(db: Queryable, accountId: number, prefix: string): Promise<void> {
  await db.query(
    `INSERT INTO statement_series (account_id, prefix) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET prefix = EXCLUDED.prefix`,
    [accountId, prefix],
  );
}

/** What a payout's statement names when its number is issued: the program, its statement details and the partner row. */
export async function statementPartiesSource(client: PoolClient, payoutId: number) {
  const { rows } = await client.query(
    `SELECT p.program_id, p.partner_id, pr.name AS program_name, pr.statement_legal_name, pr.statement_address, pr.statement_tax_id, pa.name AS partner_name, pa.email
       FROM payouts p JOIN programs pr ON pr.id = p.program_id JOIN partners pa ON pa.id = p.partner_id WHERE p.id = $1`,
    [payoutId],
  );
  const r = rows[0];
  if (!r) throw new Error(`payout ${payoutId} not found`);
  return {
    programId: Number(r.program_id), partnerId: Number(r.partner_id), programName: r.program_name as string,
    brand: { legalName: r.statement_legal_name as string, address: r.statement_address as string, taxId: r.statement_tax_id as string },
    partnerName: r.partner_name as string, email: (r.email ?? '') as string,
  };
}

/** The statement's title and parties as issued (once: a snapshot is never replaced). */
export async function setStatementSnapshot(client: PoolClient, payoutId: number, snapshot: unknown): Promise<void> {
  await client.query('UPDATE statement_numbers SET snapshot = $2 WHERE payout_id = $1 AND snapshot IS NULL', [payoutId, JSON.stringify(snapshot)]);
}
