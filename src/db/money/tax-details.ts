// Partners' tax details (kept per sign-in email, the TIN sealed), their history, the program's
// tax-details threshold, what a partner was paid in a calendar year, and the year-end export's
// rows. Every read of payouts is scoped by program (and partner); tax details by email, the
// person's own: a brand reads them only through partner-detail-shares.ts (what was shared with it).
import type { TaxThresholds, TinKind, YearEndRow } from '../../core/tax-details.js';
import type { Currency } from '../../core/types.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** A row as stored: the TIN only sealed, with its last 4 digits for the masked view. */
export interface StoredTaxDetails {
  legalName: string;
  country: string;
  address: string;
  usPerson: boolean;
  tinKind: TinKind | null;
  tinSealed: string | null;
  tinLast4: string | null;
  foreignName: string | null;
  foreignCitizenship: string | null;
  foreignSignedOn: string | null;
  foreignSignature: string | null;
  updatedAt: Date;
}

export const taxColumns = (t: string) => `${t}legal_name, ${t}country, ${t}address, ${t}us_person, ${t}tin_kind, ${t}tin_sealed, ${t}tin_last4, ${t}foreign_name,
  ${t}foreign_citizenship, to_char(${t}foreign_signed_on, 'YYYY-MM-DD') AS foreign_signed_on, ${t}foreign_signature, ${t}updated_at`;
const COLUMNS = taxColumns('');

export const toStoredTaxDetails = (r: Record<string, any>): StoredTaxDetails => ({
  legalName: r.legal_name, country: r.country, address: r.address, usPerson: r.us_person, tinKind: r.tin_kind, tinSealed: r.tin_sealed, tinLast4: r.tin_last4,
  foreignName: r.foreign_name, foreignCitizenship: r.foreign_citizenship, foreignSignedOn: r.foreign_signed_on, foreignSignature: r.foreign_signature, updatedAt: r.updated_at,
});

export async function taxDetails(db: Queryable, email: string): Promise<StoredTaxDetails | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM partner_tax_details WHERE email = lower($1)`, [email]);
  return rows[0] ? toStoredTaxDetails(rows[0]) : null;
}

/** The details given (replacing the last) and a line of their history: who gave them, when. */
export async function saveTaxDetails(client: PoolClient, email: string, d: Omit<StoredTaxDetails, 'updatedAt'>, at: Date, by: string): Promise<void> {
  await client.query(
    `INSERT INTO partner_tax_details (email, legal_name, country, address, us_person, tin_kind, tin_sealed, tin_last4, foreign_name, foreign_citizenship, foreign_signed_on, foreign_signature, updated_at)
     VALUES (lower($1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (email) DO UPDATE SET legal_name = EXCLUDED.legal_name, country = EXCLUDED.country, address = EXCLUDED.address, us_person = EXCLUDED.us_person,
       tin_kind = EXCLUDED.tin_kind, tin_sealed = EXCLUDED.tin_sealed, tin_last4 = EXCLUDED.tin_last4, foreign_name = EXCLUDED.foreign_name,
       foreign_citizenship = EXCLUDED.foreign_citizenship, foreign_signed_on = EXCLUDED.foreign_signed_on, foreign_signature = EXCLUDED.foreign_signature, updated_at = EXCLUDED.updated_at`,
    [email, d.legalName, d.country, d.address, d.usPerson, d.tinKind, d.tinSealed, d.tinLast4, d.foreignName, d.foreignCitizenship, d.foreignSignedOn, d.foreignSignature, at],
  );
  await client.query('INSERT INTO partner_tax_details_history (email, changed_at, changed_by, details) VALUES (lower($1), $2, $3, $4)', [email, at, by, JSON.stringify(d)]);
}

/** Who changed the person's tax details and when, newest first. */
export async function taxDetailsHistory(db: Queryable, email: string): Promise<{ changedAt: Date; changedBy: string }[]> {
  const { rows } = await db.query('SELECT changed_at, changed_by FROM partner_tax_details_history WHERE email = lower($1) ORDER BY changed_at DESC, id DESC LIMIT 50', [email]);
  return rows.map((r) => ({ changedAt: r.changed_at, changedBy: r.changed_by }));
}

export interface TaxSettings {
  required: boolean;
  /** Per currency, in its smallest unit. */
  thresholds: TaxThresholds;
}

export async function taxSettings(db: Queryable, programId: number): Promise<TaxSettings | null> {
  const { rows } = await db.query('SELECT tax_details_required, tax_thresholds FROM programs WHERE id = $1', [programId]);
  return rows[0] ? { required: rows[0].tax_details_required, thresholds: rows[0].tax_thresholds } : null;
}

export async function setTaxSettings(db: Queryable, programId: number, settings: TaxSettings): Promise<void> {
  await db.query('UPDATE programs SET tax_details_required = $2, tax_thresholds = $3 WHERE id = $1', [programId, settings.required, JSON.stringify(settings.thresholds)]);
}

/**
 * What each named partner was paid or is being paid this calendar year, per currency: payouts
 * paid, processing or pending (a pending one is on its way), by when they were paid (or made).
 * Failed and canceled ones paid nothing.
 */
export async function paidInYear(db: Queryable, programId: number, partnerIds: number[], from: Date, to: Date): Promise<Map<string, number>> {
  if (partnerIds.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT partner_id, currency, sum(amount_cents)::bigint AS cents FROM payouts
      WHERE partner_id = ANY ($2::bigint[]) AND program_id = $1 AND status IN ('pending', 'processing', 'paid')
        AND coalesce(paid_at, created_at) >= $3 AND coalesce(paid_at, created_at) < $4
      GROUP BY partner_id, currency`,
    [programId, partnerIds, from, to],
  );
  return new Map(rows.map((r) => [`${r.partner_id}:${r.currency}`, Number(r.cents)]));
}

/** A partner's year in one currency as paid; the tax details are joined by the app through the shares. */
export type YearEndDbRow = Omit<YearEndRow, 'tax'>;

/** Per partner and currency, what the program's paid payouts paid in [from, to) (failed and canceled ones excluded); the tax details shared are read beside it. */
export async function yearEndRows(db: Queryable, programId: number, from: Date, to: Date): Promise<YearEndDbRow[]> {
  const { rows } = await db.query(
    `SELECT y.partner_id, y.currency, y.cents, y.n, pa.name AS partner_name, pa.email
       FROM (SELECT partner_id, currency, sum(amount_cents)::bigint AS cents, count(*)::int AS n FROM payouts
              WHERE program_id = $1 AND status = 'paid' AND paid_at >= $2 AND paid_at < $3 GROUP BY partner_id, currency) y
       JOIN partners pa ON pa.id = y.partner_id AND pa.program_id = $1
      ORDER BY pa.name, y.partner_id, y.currency`,
    [programId, from, to],
  );
  return rows.map((r) => ({
    partnerId: Number(r.partner_id), partnerName: r.partner_name, email: r.email, currency: r.currency, paidCents: Number(r.cents), payouts: r.n,
  }));
}
