// Partners apply (docs/partners.md): the public page of a program or one of its groups, the
// application with its stored terms acceptance, the reviewer's view with risk signals, and the
// brand's application settings. The public answer never says whether an address is known.
import { z } from 'zod';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from '../../core/names.js';
import { AffixError, MESSAGES, errors } from '../../core/errors.js';
import { ownLinkCode } from '../../core/link-codes.js';
import { linkCodeInUse } from '../../db/partners/referrals.js';
import { APPLICATION_FIELD_TYPES, type ApplicationField, type RiskSignal, blocksAutoApproval, isFreeMailDomain, parseFieldLines, readAnswers } from '../../core/partners.js';
import { describeCommission } from '../../core/programs.js';
import * as applications from '../../db/partners/applications.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessage } from '../../db/outbound/messages.js';
import * as groupsDb from '../../db/partners/groups.js';
import * as enrollmentsDb from '../../db/partners/enrollments.js';
import { type PoolClient, isUniqueViolation, withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { SYSTEM, changedFields } from '../../core/audit.js';
import { type PartnerDeps, checkBulkRequest, runBulkInline } from './bulk-actions.js';
import { FORM_BOOLEAN } from '../money/payout-settings.js';
import { applicationReceivedMail, mailBrand, newApplicationMail, queueForManagers } from '../outbound/mail.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import { mayMailAddress } from '../accounts/access.js';

/** What the public page shows: the program's terms and rewards, the group's when it is a group's page. */
export async function applicationPage(deps: ManagementDeps, programRef: string, groupSlug?: string) {
  const program = /^[a-z0-9-]{1,63}$/i.test(programRef) ? await applications.applicationPage(deps.pool, programRef) : null;
  if (!program) throw errors.notFound('This application page does not exist');
  const groups = (await groupsDb.listGroups(deps.pool, program.programId)).filter((g) => g.applications_open);
  const group = groupSlug ? (groups.find((g) => g.slug === groupSlug.toLowerCase()) ?? null) : null;
  if (groupSlug ? !group : !program.applicationsOpen) throw errors.notFound('This program is not taking applications');
  const reward = group
    ? describeCommission(group.commission_type, String(group.commission_rate), group.duration_months)
    : describeCommission(program.commissionType, program.commissionRate, program.durationMonths);
  return { program, group, groups: group ? [] : groups, reward };
}

const applyInput = z.object({
  name: z
    .string({ error: 'Give your name.' })
    .trim()
    .min(1, 'Give your name.')
    .max(255, 'At most 255 characters.')
    .refine((text) => !hasControlCharacter(text), `Your name ${NO_CONTROL_CHARACTERS}.`),
  email: z.email('Give an email address we can reach you at.').max(320),
  // A checkbox: absent when not ticked.
  accept_terms: z.unknown().transform((v) => v === true || v === 'on' || v === 'true').refine((v) => v, 'Accept the program terms to apply.'),
  terms_version: z.string().max(50).optional(),
  // The link code the applicant would like (their link's on approval); empty: a random one.
  code: z.unknown().optional(),
});

/** The one answer to every application, whoever sends it (no way to test addresses). */
export const APPLICATION_RECEIVED = 'Thank you: your application was received. The brand will email you about it.';

/**
 * Someone applies. A new email becomes an enrollment that has applied (into the group of the
 * page); a rejected applicant may apply again when the brand's reapply rule allows; anyone else
 * (applied, approved, banned) changes nothing. The answer is the same in every case. A group
 * with auto-approve approves at once unless a risk signal blocks it.
 */
export async function apply(deps: PartnerDeps, programRef: string, groupSlug: string | undefined, input: unknown, ip: string | null) {
  const { program, group } = await applicationPage(deps, programRef, groupSlug);
  // Every problem at once: the form's own fields and the brand's questions.
  const parsed = applyInput.safeParse(input);
  const { answers, problems } = readAnswers(program.fields, (input ?? {}) as Record<string, unknown>);
  const wantedCode = await wantedLinkCode(deps, (input as Record<string, unknown> | null)?.code, problems);
  if (!parsed.success || Object.keys(problems).length) {
    const fields: Record<string, string> = {};
    for (const issue of parsed.error?.issues ?? []) fields[issue.path.join('.') || 'body'] ??= issue.message;
    Object.assign(fields, problems);
    throw errors.invalid(Object.values(fields)[0]!, fields);
  }
  const body = parsed.data;
  if (body.terms_version !== undefined && body.terms_version !== program.termsVersion) {
    throw errors.invalid('The program terms changed while you were reading them', { accept_terms: 'The terms changed while you were reading: read them again and accept.' });
  }
  const now = deps.now();
  const applied = await withTransaction(deps.pool, async (client) => {
    const standing = await applications.applicantStanding(client, program.programId, body.email);
    let partnerId: number;
    if (!standing) {
      const made = await enroll(client, program.programId, body.name, body.email, group?.id ?? null);
      if (made === null) return null; // someone applied with this email at the same moment
      partnerId = made;
    } else if (standing.status === 'rejected' && standing.reapply !== 'never' && (!standing.reapplyAfter || standing.reapplyAfter <= now)) {
      partnerId = standing.partnerId;
      await enrollmentsDb.setStatus(client, [partnerId], 'applied', now);
      if (group) await enrollmentsDb.setGroup(client, [partnerId], group.id);
    } else {
      return null;
    }
    const applicationId = await applications.insertApplication(client, {
      programId: program.programId, partnerId, groupId: group?.id ?? null, answers, termsVersion: program.termsVersion, acceptedAt: now, ip, wantedCode,
    });
    const signals = await riskSignals(client, program.programId, partnerId);
    await audit(client, { kind: 'operator', actor: { type: 'applicant', id: null, label: body.name, ip } }, [
      { programId: program.programId, action: 'partner.applied', objectType: 'partner', objectId: partnerId, changes: changedFields(null, { group_id: group?.id ?? null, terms_version: program.termsVersion }) },
    ]);
    // The applicant and the brand hear of it with the change (a new or allowed application only).
    const links = deps.mailLinks ?? { publicUrl: '{{affix}}' };
    // Anyone can type an address here: its mail counts against the address's cap (docs/mail.md).
    if (await mayMailAddress(client, body.email, now)) {
      await queueMails(client, [applicationReceivedMail(links, { programId: program.programId, programName: program.name, brand: await mailBrand(client, program.programId), email: body.email, applicationId })]);
    }
    await queueForManagers(client, program.programId, newApplicationMail(links, { programId: program.programId, programName: program.name, applicationId, name: body.name, signals }));
    await writeMessage(client, DEFAULT_OUTBOUND_QUEUE, {
      programId: program.programId, type: 'partner.applied', test: false,
      data: { program_id: program.programId, partner_id: partnerId, group_id: group?.id ?? null, risk_signals: signals },
    });
    return { partnerId, autoApprove: !!group?.auto_approve && !blocksAutoApproval(signals) };
  });
  if (applied?.autoApprove) {
    // The system approves, as a manager would (the same bulk path): links, invitation, events.
    const system: Scope = { kind: 'operator', actor: SYSTEM(`auto-approve of group ${group!.name}`) };
    const request = await checkBulkRequest(deps, system, program.programId, { action: 'approve', partner_ids: [applied.partnerId], group_id: group!.id, reason: 'approved automatically' });
    await runBulkInline(deps, system, request, true);
  }
  return { message: APPLICATION_RECEIVED };
}

/**
 * The code an applicant typed, checked as a partner's own (src/core/link-codes.ts) and against
 * the codes in use (codes are public: saying one is taken tells nothing). Its problem joins the
 * form's others; approval takes it if it is still free then, else a random one.
 */
async function wantedLinkCode(deps: ManagementDeps, value: unknown, problems: Record<string, string>): Promise<string | null> {
  try {
    const code = ownLinkCode(value, 'code');
    if (code && (await linkCodeInUse(deps.pool, code))) problems.code = MESSAGES.linkCodeTaken;
    return code;
  } catch (error) {
    if (!(error instanceof AffixError) || !error.init.fields?.code) throw error;
    problems.code = error.init.fields.code;
    return null;
  }
}

async function enroll(client: PoolClient, programId: number, name: string, email: string, groupId: number | null): Promise<number | null> {
  await client.query('SAVEPOINT enroll');
  try {
    const made = await enrollmentsDb.insertEnrollment(client, programId, { name, email, status: 'applied', groupId, tags: [], notes: null });
    await client.query('RELEASE SAVEPOINT enroll');
    return 'partner' in made ? made.partner.id : null;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT enroll');
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** What the account already knows about an applicant (src/core/partners.ts names the signals). */
async function riskSignals(db: PoolClient | ManagementDeps['pool'], programId: number, partnerId: number): Promise<RiskSignal[]> {
  const facts = await applications.riskFacts(db, programId, partnerId);
  if (!facts) return [];
  const signals: RiskSignal[] = [];
  if (facts.emailSeen) signals.push('email_seen_with_other_partner');
  if (facts.payoutSeen) signals.push('payout_account_seen_with_other_partner');
  if (facts.bannedElsewhere) signals.push('banned_in_other_program');
  if (facts.email && isFreeMailDomain(facts.email)) signals.push('free_email_domain');
  return signals;
}

/** The program's applications (pending first by default) with each applicant's risk signals. */
export async function listApplications(deps: ManagementDeps, scope: Scope, programId: number, query: { status?: unknown; after?: unknown; limit?: unknown }) {
  await programInScope(deps, scope, programId);
  const status = typeof query.status === 'string' && ['pending', 'approved', 'rejected'].includes(query.status) ? query.status : query.status === 'all' ? null : 'pending';
  const limit = Math.min(Math.max(Number(query.limit) || 50, 1), 500);
  const afterId = Number(query.after) || 0;
  const rows = await applications.listApplications(deps.pool, programId, { status, afterId, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const withSignals = await Promise.all(page.map(async (a) => ({ ...a, risk_signals: await riskSignals(deps.pool, programId, a.partner_id) })));
  return { applications: withSignals, next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null };
}

export const settingsInput = z.object({
  applications_open: FORM_BOOLEAN.optional(),
  slug: z
    .union([z.literal('').transform(() => null), z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'Letters, digits and -, up to 63 (the page address).')])
    .nullish(),
  terms_text: z.string().max(20_000, 'Terms are at most 20,000 characters.').optional(),
  partner_resources: z.string().max(5_000, 'Resources are at most 5,000 characters.').optional(),
  terms_version: z.string().trim().min(1, 'Give the terms a version (1, 2026-11, …).').max(50).optional(),
  // The API takes the questions as a list; the dashboard as lines (parseFieldLines).
  fields: z
    .array(
      z.object({
        key: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'A key is lower-case letters, digits and _.'),
        label: z.string().trim().min(1).max(200),
        type: z.enum(APPLICATION_FIELD_TYPES),
        required: z.boolean().default(false),
        options: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
      }),
    )
    .max(20, 'At most 20 questions.')
    .optional(),
  field_lines: z.string().max(20_000).optional(),
});

export async function applicationSettings(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return applications.applicationSettings(deps.pool, programId);
}

/** Opens or closes the program's page, sets its address, terms (a new version when they change) and questions. */
export async function updateApplicationSettings(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const body = parseInput(settingsInput, input);
  const current = await applications.applicationSettings(deps.pool, programId);
  let fields: ApplicationField[] = (body.fields as ApplicationField[] | undefined) ?? current.fields;
  if (body.field_lines !== undefined) {
    const parsed = parseFieldLines(body.field_lines);
    if (parsed.problems.length) throw errors.invalid(parsed.problems[0]!, { field_lines: parsed.problems.join(' ') });
    fields = parsed.fields;
  }
  const termsText = body.terms_text ?? current.termsText;
  // Changed terms without a new version would make earlier acceptances say they accepted these.
  // (The first terms a program writes keep version 1: nobody accepted anything before them.)
  const changed = termsText !== current.termsText && current.termsText !== '';
  const termsVersion = body.terms_version ?? (changed ? String(bumpVersion(current.termsVersion)) : current.termsVersion);
  const next = {
    applicationsOpen: body.applications_open ?? current.applicationsOpen, slug: body.slug === undefined ? current.slug : body.slug, termsText, termsVersion, fields,
    partnerResources: body.partner_resources ?? current.partnerResources,
  };
  return withTransaction(deps.pool, async (client) => {
    if (!(await applications.setApplicationSettings(client, programId, next))) {
      throw errors.conflict('Another program has this page address', 'slug_taken');
    }
    await audit(client, scope, [{ programId, action: 'application_page.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...current }, { ...next }) }]);
    return next;
  });
}

const bumpVersion = (version: string) => (/^\d+$/.test(version) ? Number(version) + 1 : `${version}+1`);

