// The program's brand (issue 44, item 1): what the dashboard's Brand page sets (name, pitch,
// reward summary, accent colour, logo, the application questions) and what the apply page, the
// portal, mail and QR codes read of it.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type EditorAction, type QuestionRow, applyEditorAction } from '../../core/application-form.js';
import { BRAND_NAME_MAX, type Brand, PITCH_MAX, REWARD_SUMMARY_MAX, brandOf, checkAccent, checkLogo } from '../../core/brand.js';
import { errors } from '../../core/errors.js';
import { describeCommission } from '../../core/programs.js';
import { CUSTOMER_LABELS, type CustomerLabel } from '../../core/referrals.js';
import * as applications from '../../db/partners/applications.js';
import * as brands from '../../db/programs/brand.js';
import { type Pool, type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from './management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { changedFields } from '../../core/audit.js';

type Db = Pool | PoolClient;

/** The brand as pages, mail and QR codes show it; null when the program does not exist. */
export async function programBrand(db: Db, programId: number): Promise<(Brand & { logoSha256: string | null; brandName: string | null; programName: string; generatedSummary: string; customerLabel: CustomerLabel }) | null> {
  const row = await brands.programBrand(db, programId);
  if (!row) return null;
  const generatedSummary = describeCommission(row.commissionType, row.commissionRate, row.durationMonths);
  return { ...brandOf(row, generatedSummary), logoSha256: row.logoSha256, brandName: row.brandName, programName: row.programName, generatedSummary, customerLabel: row.customerLabel };
}

/** The brand as the admin API answers it. */
export async function brandView(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  const b = (await programBrand(deps.pool, programId))!;
  return {
    name: b.name, brand_name: b.brandName, pitch: b.pitch, reward_summary: b.rewardSummary, generated_reward_summary: b.generatedSummary,
    accent_color: b.accent, logo_path: b.logoPath, customer_label: b.customerLabel,
  };
}

/** The dashboard's Brand page (the caller checked the program is in scope): the brand as set, the page's address, the application questions. */
export async function brandPageData(db: Db, programId: number) {
  const [brand, settings] = await Promise.all([programBrand(db, programId), applications.applicationSettings(db, programId)]);
  return { brand: brand!, fields: settings.fields, slug: settings.slug, applicationsOpen: settings.applicationsOpen };
}

const optionalText = (max: number, words: string) =>
  z
    .string()
    .trim()
    .max(max, `${words} is at most ${max} characters.`)
    .refine((t) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(t), `${words} may not hold control characters.`)
    .transform((t) => (t === '' ? null : t));

export const brandInput = z.object({
  brand_name: optionalText(BRAND_NAME_MAX, 'The name').optional(),
  pitch: optionalText(PITCH_MAX, 'The pitch').optional(),
  reward_summary: optionalText(REWARD_SUMMARY_MAX, 'The reward summary').optional(),
  accent_color: z.string().trim().max(20).optional(),
  /** What partners see of each customer they referred, in the portal's Referrals page and its CSV. */
  customer_label: z.enum(CUSTOMER_LABELS, { message: `Choose one of ${CUSTOMER_LABELS.join(', ')}.` }).optional(),
});

/** Sets the brand's name, pitch, reward summary (empty: written from the terms) and accent colour (empty: the service's; else contrast-checked). */
export async function updateBrand(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const body = parseInput(brandInput, input);
  const current = (await brands.programBrand(deps.pool, programId))!;
  let accent = current.accent;
  if (body.accent_color !== undefined) {
    if (body.accent_color === '') accent = null;
    else {
      const verdict = checkAccent(body.accent_color);
      if (!verdict.ok) throw errors.invalid(verdict.message, { accent_color: verdict.message });
      accent = verdict.color;
    }
  }
  const next = {
    brandName: body.brand_name === undefined ? current.brandName : body.brand_name,
    pitch: body.pitch === undefined ? current.pitch : (body.pitch ?? ''),
    rewardSummary: body.reward_summary === undefined ? current.rewardSummary : body.reward_summary,
    accent,
    customerLabel: body.customer_label ?? current.customerLabel,
  };
  await withTransaction(deps.pool, async (client) => {
    await brands.setBrandTexts(client, programId, next);
    const before = { brandName: current.brandName, pitch: current.pitch, rewardSummary: current.rewardSummary, accent: current.accent, customerLabel: current.customerLabel };
    await audit(client, scope, [{ programId, action: 'brand.updated', objectType: 'program', objectId: programId, changes: changedFields(before, next) }]);
  });
  return next;
}

/** Stores the logo after reading its type from its bytes (PNG, JPEG or WebP, at most 200 KB). */
export async function uploadLogo(deps: ManagementDeps, scope: Scope, programId: number, bytes: Buffer | undefined) {
  await programInScope(deps, scope, programId);
  const verdict = checkLogo(bytes ?? Buffer.alloc(0));
  if (!verdict.ok) throw errors.invalid(verdict.message, { logo: verdict.message });
  const sha256 = createHash('sha256').update(bytes!).digest('hex');
  await withTransaction(deps.pool, async (client) => {
    await brands.setLogo(client, programId, { type: verdict.type, bytes: bytes!, sha256 }, deps.now());
    await audit(client, scope, [{ programId, action: 'brand.logo_set', objectType: 'program', objectId: programId, changes: { logo: { from: null, to: `${verdict.type}, ${bytes!.length} bytes, sha256 ${sha256.slice(0, 12)}` } } }]);
  });
  return { sha256, type: verdict.type };
}

export async function removeLogo(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  await withTransaction(deps.pool, async (client) => {
    await brands.removeLogo(client, programId);
    await audit(client, scope, [{ programId, action: 'brand.logo_removed', objectType: 'program', objectId: programId, changes: {} }]);
  });
}

/** The logo at its address (public: the apply page and the portal show it); null when the address is not the current logo's. */
export async function logoAt(db: Db, programId: number, sha256: string) {
  if (!Number.isSafeInteger(programId) || !/^[0-9a-f]{64}$/.test(sha256)) return null;
  return brands.logoBytes(db, programId, sha256);
}

/**
 * The form editor's post: the rows after the action, stored when every row is right. Refused,
 * the rows come back (as edited) with each problem beside its field.
 */
export async function editQuestions(deps: ManagementDeps, scope: Scope, programId: number, rows: QuestionRow[], added: QuestionRow, action: EditorAction) {
  await programInScope(deps, scope, programId);
  const result = applyEditorAction(rows, added, action);
  if (Object.keys(result.problems).length) return { saved: false as const, ...result };
  await withTransaction(deps.pool, async (client) => {
    const current = await applications.applicationSettings(client, programId);
    await applications.setApplicationSettings(client, programId, { ...current, fields: result.fields });
    await audit(client, scope, [{ programId, action: 'application_page.updated', objectType: 'program', objectId: programId, changes: changedFields({ fields: current.fields }, { fields: result.fields }) }]);
  });
  return { saved: true as const, ...result };
}
