// A payout's statement for the partner: the payout, its lines, where it was sent (masked), the
// brand's statement details and the partner's invoice details. The partner's invoice details
// belong to the person (their sign-in email), not to one program: entered once, they appear on
// every statement issued from then on (an issued one keeps its snapshot) of each program they shared them with. Not shared, the
// statement names the partner as the program knows them — the partner's copy and the brand's alike.
import { z } from 'zod';
import { changedFields } from '../../core/audit.js';
import { errors } from '../../core/errors.js';
import { COUNTRY_CODES, linesTotal, maskedPayTo, statementLines } from '../../core/payout-statements.js';
import * as statements from '../../db/money/payout-statements.js';
import { type StatementDocument, statementCsv } from '../../core/statement-csv.js';
import { STATEMENT_PREFIX, STATEMENT_PREFIX_RULE, reversedMark, statementNumberText } from '../../core/statement-numbers.js';
import { statementParties } from '../../core/statement-snapshot.js';
import { conflictingTaxId, taxIdConflictMessage } from '../../core/statement-tax-ids.js';
import { setStatementPrefix, statementPrefix } from '../../db/money/statement-numbers.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { type PortalReadDeps, ownPartner } from '../partners/portal.js';
import { sharedPartnerDetails } from '../../db/money/partner-detail-shares.js';
import { type ShareDeps, sharesOfForm } from './partner-detail-shares.js';

/** One of the signed-in partner's payouts with its lines; the same 404 for another partner's payout as for none. */
export async function partnerPayout(deps: PortalReadDeps, email: string, partnerId: number, payoutId: number) {
  const partner = await ownPartner(deps, email, partnerId);
  const [found, shared, own] = await Promise.all([
    statements.partnerPayoutStatement(deps.pool, partner.partnerId, payoutId),
    sharedPartnerDetails(deps.pool, partner.programId, [partner.partnerId]),
    statements.invoiceDetails(deps.pool, email),
  ]);
  if (!found) throw errors.notFound('Payout not found');
  // The same document as the brand's copy: their details only when shared with this enrollment.
  const invoice = shared.get(partner.partnerId)?.invoice ?? null;
  return { partner, ...statementView(found, invoice, email), invoiceGiven: own !== null };
}

/**
 * The brand's copy of a payout's statement (the same document the partner prints: a self-billing
 * invoice is the brand's record too); another program's payout answers the same 404 as none.
 */
export async function programPayout(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number) {
  await programInScope(deps, scope, programId);
  const found = await statements.programPayoutStatement(deps.pool, programId, payoutId);
  if (!found) throw errors.notFound('Payout not found');
  // The person's invoice details only when they shared them with this partner row (under its current email).
  const shared = await sharedPartnerDetails(deps.pool, programId, [found.payout.partnerId]);
  return statementView(found, shared.get(found.payout.partnerId)?.invoice ?? null, found.payout.partnerEmail ?? '');
}

export type StatementView = ReturnType<typeof statementView>;

function statementView(found: NonNullable<Awaited<ReturnType<typeof statements.partnerPayoutStatement>>>, invoice: statements.InvoiceDetails | null, email: string) {
  const { payout } = found;
  const lines = statementLines(found.commissions, found.clawbacks);
  const total = linesTotal(lines);
  // Numbered: as issued (the snapshot), never changed since; unnumbered (or numbered before snapshots were kept): live.
  const frozen = payout.statementSnapshot;
  const parties = frozen ?? statementParties({ programName: payout.programName, brand: payout.brand, partnerName: payout.partnerName, email, invoice });
  const document: StatementDocument = {
    title: parties.title,
    number: statementNumberText(payout.statementNumber),
    issueDate: payout.statementNumber?.issuedAt ?? null,
    reversed: reversedMark(payout.statementNumber, payout.status, payout.failedAt, payout.failureReason),
    from: parties.from,
    to: parties.to,
    programName: payout.programName, payoutId: payout.id, currency: payout.currency, status: payout.status, reference: payout.reference,
    createdAt: payout.createdAt, paidAt: payout.paidAt, lines, total,
  };
  return { payout, payTo: maskedPayTo(payout.payTo), lines, total, invoice, frozen: frozen !== null, document };
}

/** The partner's statement as CSV (the page's document, cell by cell). */
export async function partnerStatementCsv(deps: PortalReadDeps, email: string, partnerId: number, payoutId: number): Promise<string> {
  return statementCsv((await partnerPayout(deps, email, partnerId, payoutId)).document);
}

/** The brand's copy as CSV. */
export async function programStatementCsv(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number): Promise<string> {
  return statementCsv((await programPayout(deps, scope, programId, payoutId)).document);
}

/** A statement's address: at most 6 lines of at most 100 characters; blank lines dropped. */
const addressLines = (what: string) =>
  z
    .string()
    .max(600, `The ${what} is at most 600 characters.`)
    .transform((text) => text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean))
    .refine((lines) => lines.length <= 6, `The ${what} has at most 6 lines.`)
    .refine((lines) => lines.every((line) => line.length <= 100), `Each line of the ${what} is at most 100 characters.`)
    .transform((lines) => lines.join('\n'));

/** A VAT or tax id as tax offices print them: letters, digits, spaces, dots, dashes and slashes. */
const taxId = z
  .string()
  .trim()
  .max(40, 'A tax id is at most 40 characters.')
  .refine((value) => value === '' || /^[A-Za-z0-9][A-Za-z0-9 .\/-]*[A-Za-z0-9]$/.test(value), 'A tax id has letters and digits (spaces, dots, dashes and slashes between them), like DE123456789.')
  .transform((value) => value.toUpperCase());

const invoiceInput = z.object({
  name: z.string({ error: 'Give the name to put on your statements.' }).trim().min(1, 'Give the name to put on your statements (yours or your company’s).').max(200, 'At most 200 characters.'),
  address: addressLines('address').default(''),
  country: z.string().trim().toUpperCase().refine((code) => code === '' || COUNTRY_CODES.includes(code), 'Choose a country from the list.').default(''),
  tax_id: taxId.default(''),
});

export const invoiceDetailsOf = (deps: ManagementDeps, email: string) => statements.invoiceDetails(deps.pool, email);

/**
 * The signed-in person's invoice details (validated), for every statement of theirs, with the
 * enrollments ticked to share them with (`share`: partner ids; the others unshared).
 */
export async function saveInvoiceDetails(deps: ShareDeps, email: string, input: unknown) {
  const parsed = parseInput(invoiceInput, input);
  const details = { name: parsed.name, address: parsed.address, country: parsed.country, taxId: parsed.tax_id };
  const saveShares = await sharesOfForm(deps, email, input);
  await withTransaction(deps.pool, async (client) => {
    await statements.saveInvoiceDetails(client, email, details, deps.now());
    await saveShares(client);
  });
  return details;
}

const brandInput = z.object({
  legal_name: z.string().trim().max(200, 'At most 200 characters.').default(''),
  address: addressLines('address').default(''),
  tax_id: taxId.default(''),
  /** The brand's (the account's) number prefix; absent: kept as it is. */
  number_prefix: z.string().trim().refine((value) => STATEMENT_PREFIX.test(value), STATEMENT_PREFIX_RULE).optional(),
});

/**
 * The brand's details on its partners' statements (legal name, address, tax id; empty: the
 * program's name alone) and the prefix of its statement numbers (the account's: one series for
 * every program of the brand).
 */
export async function statementDetailsOf(deps: ManagementDeps, scope: Scope, programId: number) {
  const program = await programInScope(deps, scope, programId);
  const [details, numberPrefix] = await Promise.all([statements.statementDetails(deps.pool, programId), statementPrefix(deps.pool, program.account_id)]);
  return { ...details!, numberPrefix };
}

export async function updateStatementDetails(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  const program = await programInScope(deps, scope, programId);
  const parsed = parseInput(brandInput, input);
  const details = { legalName: parsed.legal_name, address: parsed.address, taxId: parsed.tax_id };
  return withTransaction(deps.pool, async (client) => {
    // One series per brand: its programs give the same tax id (or none).
    const conflict = conflictingTaxId(details.taxId, await statements.otherProgramsTaxIds(client, program.account_id, programId));
    if (conflict) throw errors.invalid(taxIdConflictMessage(conflict), { tax_id: taxIdConflictMessage(conflict) });
    const current = (await statements.statementDetails(client, programId))!;
    const currentPrefix = await statementPrefix(client, program.account_id);
    const numberPrefix = parsed.number_prefix ?? currentPrefix;
    await statements.setStatementDetails(client, programId, details);
    if (numberPrefix !== currentPrefix) await setStatementPrefix(client, program.account_id, numberPrefix);
    await audit(client, scope, [
      { programId, action: 'statement_details.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...current, numberPrefix: currentPrefix }, { ...details, numberPrefix }) },
    ]);
    return { ...details, numberPrefix };
  });
}
