// A payout's statement for the partner: the payout, its lines, where it was sent (masked), the
// brand's statement details and the partner's invoice details. The partner's invoice details
// belong to the person (their sign-in email), not to one program: entered once, they appear on
// every statement of every program that pays them, earlier ones included.
import { z } from 'zod';
import { changedFields } from '../../core/audit.js';
import { errors } from '../../core/errors.js';
import { COUNTRY_CODES, linesTotal, maskedPayTo, statementLines } from '../../core/payout-statements.js';
import * as statements from '../../db/money/payout-statements.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { type PortalReadDeps, ownPartner } from '../partners/portal.js';

/** One of the signed-in partner's payouts with its lines; the same 404 for another partner's payout as for none. */
export async function partnerPayout(deps: PortalReadDeps, email: string, partnerId: number, payoutId: number) {
  const partner = await ownPartner(deps, email, partnerId);
  const [found, invoice] = await Promise.all([statements.partnerPayoutStatement(deps.pool, partner.partnerId, payoutId), statements.invoiceDetails(deps.pool, email)]);
  if (!found) throw errors.notFound('Payout not found');
  const lines = statementLines(found.commissions, found.clawbacks);
  return { partner, payout: found.payout, payTo: maskedPayTo(found.payout.payTo), lines, total: linesTotal(lines), invoice };
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

/** The signed-in person's invoice details (validated), for every statement of theirs. */
export async function saveInvoiceDetails(deps: ManagementDeps, email: string, input: unknown) {
  const parsed = parseInput(invoiceInput, input);
  const details = { name: parsed.name, address: parsed.address, country: parsed.country, taxId: parsed.tax_id };
  await statements.saveInvoiceDetails(deps.pool, email, details, deps.now());
  return details;
}

const brandInput = z.object({
  legal_name: z.string().trim().max(200, 'At most 200 characters.').default(''),
  address: addressLines('address').default(''),
  tax_id: taxId.default(''),
});

/** The brand's details on its partners' statements (legal name, address, tax id); empty: the program's name alone. */
export async function statementDetailsOf(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return (await statements.statementDetails(deps.pool, programId))!;
}

export async function updateStatementDetails(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(brandInput, input);
  const details = { legalName: parsed.legal_name, address: parsed.address, taxId: parsed.tax_id };
  return withTransaction(deps.pool, async (client) => {
    const current = (await statements.statementDetails(client, programId))!;
    await statements.setStatementDetails(client, programId, details);
    await audit(client, scope, [{ programId, action: 'statement_details.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...current }, { ...details }) }]);
    return details;
  });
}
