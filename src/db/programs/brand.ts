// The program's brand (issue 44, item 1): its name, pitch, reward summary, accent colour and the
// logo's hash on the program's row; the logo's bytes in program_logos. Every read by program id.
import type { LogoType } from '../../core/brand.js';
import type { CustomerLabel } from '../../core/referrals.js';
import type { CommissionType } from '../../core/types.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { normalizeDecimal } from '../infra/rows.js';

type Queryable = Pool | PoolClient;

export interface BrandRow {
  programId: number;
  programName: string;
  brandName: string | null;
  pitch: string;
  rewardSummary: string | null;
  accent: string | null;
  logoSha256: string | null;
  commissionType: CommissionType;
  commissionRate: string;
  durationMonths: number | null;
  /** What partners see of a referred customer (core/referrals.ts). */
  customerLabel: CustomerLabel;
}

/** The program's brand and its commission terms (the reward summary is written from them when the brand wrote none). */
export async function programBrand(db: Queryable, programId: number): Promise<BrandRow | null> {
  const { rows } = await db.query(
    `SELECT id, name, brand_name, brand_pitch, reward_summary, accent_color, logo_sha256, commission_type, commission_rate, recurring_duration_months,
            referral_customer_label
       FROM programs WHERE id = $1`,
    [programId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    programId: Number(r.id),
    programName: r.name,
    brandName: r.brand_name,
    pitch: r.brand_pitch,
    rewardSummary: r.reward_summary,
    accent: r.accent_color,
    logoSha256: r.logo_sha256,
    commissionType: r.commission_type,
    commissionRate: normalizeDecimal(r.commission_rate),
    durationMonths: r.recurring_duration_months,
    customerLabel: r.referral_customer_label,
  };
}

export async function setBrandTexts(db: Queryable, programId: number, b: { brandName: string | null; pitch: string; rewardSummary: string | null; accent: string | null; customerLabel: CustomerLabel }): Promise<void> {
  await db.query('UPDATE programs SET brand_name = $2, brand_pitch = $3, reward_summary = $4, accent_color = $5, referral_customer_label = $6 WHERE id = $1', [
    programId, b.brandName, b.pitch, b.rewardSummary, b.accent, b.customerLabel,
  ]);
}

/** Stores the logo and points the program at it (one statement each, in the caller's transaction). */
export async function setLogo(client: PoolClient, programId: number, logo: { type: LogoType; bytes: Buffer; sha256: string }, at: Date): Promise<void> {
  await client.query(
    `INSERT INTO program_logos (program_id, content_type, bytes, sha256, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (program_id) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes, sha256 = EXCLUDED.sha256, updated_at = EXCLUDED.updated_at`,
    [programId, logo.type, logo.bytes, logo.sha256, at],
  );
  await client.query('UPDATE programs SET logo_sha256 = $2 WHERE id = $1', [programId, logo.sha256]);
}

export async function removeLogo(client: PoolClient, programId: number): Promise<void> {
  await client.query('DELETE FROM program_logos WHERE program_id = $1', [programId]);
  await client.query('UPDATE programs SET logo_sha256 = NULL WHERE id = $1', [programId]);
}

/** The logo, only when its hash is the one asked for (an old address answers 404, never another image). */
export async function logoBytes(db: Queryable, programId: number, sha256: string): Promise<{ type: LogoType; bytes: Buffer } | null> {
  const { rows } = await db.query('SELECT content_type, bytes FROM program_logos WHERE program_id = $1 AND sha256 = $2', [programId, sha256]);
  return rows[0] ? { type: rows[0].content_type, bytes: rows[0].bytes } : null;
}
