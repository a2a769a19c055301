// Which enrollments (partner rows) a person shared their invoice and tax details with, and the
// one read by which a brand gets those details. The details are kept per sign-in email, which the
// brand can edit on its partner rows: a share counts only while the partner row's email is still
// the one it was made under (lower(partners.email) = shares.email, in every join here).
import type { InvoiceDetails } from './payout-statements.js';
import { type StoredTaxDetails, taxColumns, toStoredTaxDetails } from './tax-details.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** What one of the program's partners shared with it: each null when not given (or not shared). */
export interface SharedDetails {
  invoice: InvoiceDetails | null;
  tax: StoredTaxDetails | null;
}

/**
 * The brand's only read of partners' invoice and tax details: for the named partners of the
 * program, those whose person shared their details with that partner row (under its current
 * email). A partner absent from the map shared nothing with this program.
 */
export async function sharedPartnerDetails(db: Queryable, programId: number, partnerIds: number[]): Promise<Map<number, SharedDetails>> {
  if (partnerIds.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT pa.id AS partner_id, i.email AS invoice_email, i.name AS invoice_name, i.address AS invoice_address, i.country AS invoice_country, i.tax_id AS invoice_tax_id,
            t.email AS tax_email, ${taxColumns('t.')}
       FROM partners pa
       JOIN partner_detail_shares s ON s.partner_id = pa.id AND s.email = lower(pa.email)
       LEFT JOIN partner_invoice_details i ON i.email = s.email
       LEFT JOIN partner_tax_details t ON t.email = s.email
      WHERE pa.program_id = $1 AND pa.id = ANY ($2::bigint[])`,
    [programId, partnerIds],
  );
  return new Map(rows.map((r) => [Number(r.partner_id), {
    invoice: r.invoice_email ? { name: r.invoice_name, address: r.invoice_address, country: r.invoice_country, taxId: r.invoice_tax_id } : null,
    tax: r.tax_email ? toStoredTaxDetails(r) : null,
  }]));
}

export interface ShareChoice {
  partnerId: number;
  programName: string;
  /** The brand as its statements name it (its legal name), else the program's domain. */
  brandName: string;
  shared: boolean;
}

/** The person's own partner rows (ids already checked as theirs) with whether each has their details. */
export async function shareChoices(db: Queryable, email: string, partnerIds: number[]): Promise<ShareChoice[]> {
  if (partnerIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT pa.id, pr.name AS program_name, coalesce(nullif(pr.statement_legal_name, ''), pr.domain) AS brand_name, s.partner_id IS NOT NULL AS shared
       FROM partners pa JOIN programs pr ON pr.id = pa.program_id
       LEFT JOIN partner_detail_shares s ON s.partner_id = pa.id AND s.email = lower(pa.email)
      WHERE pa.id = ANY ($1::bigint[]) AND lower(pa.email) = lower($2)
      ORDER BY pr.name, pa.id`,
    [partnerIds, email],
  );
  return rows.map((r) => ({ partnerId: Number(r.id), programName: r.program_name, brandName: r.brand_name, shared: r.shared }));
}

/**
 * Of the person's partner rows listed on their form, shares the ticked ones (kept as made when
 * already shared) and ends the others; rows not listed (another brand's, on a brand's own portal
 * host) are left as they are. Only rows whose email is the person's are shared.
 */
export async function setShares(client: PoolClient, email: string, listed: number[], ticked: number[], at: Date): Promise<void> {
  await client.query('DELETE FROM partner_detail_shares WHERE partner_id = ANY ($1::bigint[]) AND NOT (partner_id = ANY ($2::bigint[]))', [listed, ticked]);
  await client.query(
    `INSERT INTO partner_detail_shares (partner_id, email, shared_at)
     SELECT id, lower(email), $3 FROM partners WHERE id = ANY ($1::bigint[]) AND lower(email) = lower($2)
     ON CONFLICT (partner_id) DO UPDATE SET email = EXCLUDED.email,
       shared_at = CASE WHEN partner_detail_shares.email = EXCLUDED.email THEN partner_detail_shares.shared_at ELSE EXCLUDED.shared_at END`,
    [ticked.filter((id) => listed.includes(id)), email, at],
  );
}
