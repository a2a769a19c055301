// A payout's statement as CSV, the same document the statement page prints: title, number, issue
// date, the brand's and the partner's details (VAT or tax ids when given), the lines, the total,
// and the reversal of a payout that failed after it was paid. docs/payouts.md, "Statements".
import { csvField } from './csv.js';
import { majorUnits } from './money.js';
import type { StatementLine } from './payout-statements.js';
import type { Currency } from './types.js';

export interface StatementDocument {
  title: string;
  /** "ACME-2026-17"; null until the payout is paid. */
  number: string | null;
  issueDate: Date | null;
  reversed: string | null;
  from: { name: string; address: string; taxId: string };
  to: { name: string; address: string; country: string; taxId: string; email: string };
  programName: string;
  payoutId: number;
  currency: Currency;
  status: string;
  reference: string | null;
  createdAt: Date;
  paidAt: Date | null;
  lines: StatementLine[];
  total: number;
}

const day = (at: Date | null) => (at ? at.toISOString().slice(0, 10) : '');
/** An address's lines on one cell: "Street 1; 10115 Berlin". */
const oneLine = (address: string) => address.split('\n').filter(Boolean).join('; ');

export function statementCsv(d: StatementDocument): string {
  const money = (cents: number) => majorUnits(cents, d.currency);
  const row = (...cells: unknown[]) => cells.map(csvField).join(',');
  const lines = [
    row('document', d.title),
    row('number', d.number ?? ''),
    row('issue_date', day(d.issueDate)),
    ...(d.reversed ? [row('reversed', d.reversed)] : []),
    row('from_name', d.from.name),
    row('from_address', oneLine(d.from.address)),
    row('from_tax_id', d.from.taxId),
    row('to_name', d.to.name),
    row('to_address', oneLine(d.to.address)),
    row('to_country', d.to.country),
    row('to_tax_id', d.to.taxId),
    row('to_email', d.to.email),
    row('program', d.programName),
    row('payout', d.payoutId),
    row('currency', d.currency),
    row('status', d.status),
    row('reference', d.reference ?? ''),
    row('created_at', d.createdAt.toISOString()),
    row('paid_at', d.paidAt ? d.paidAt.toISOString() : ''),
    '',
    row('commission', 'transaction_id', 'sale_date', 'sale_amount', 'commission_amount', 'line'),
    ...d.lines.map((l) =>
      l.kind === 'commission'
        ? row(l.commissionId, l.transactionId ?? '', day(l.saleDate), l.saleCents === null ? '' : money(l.saleCents), money(l.amountCents), l.transactionId === null && l.words ? `commission: ${l.words}` : 'commission')
        : row(l.commissionId, l.transactionId, day(l.saleDate), '', money(l.amountCents), l.amountCents < 0 ? `clawback ${day(l.madeAt)}` : `given back ${day(l.madeAt)}`),
    ),
    row('total', '', '', '', money(d.total), d.currency),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
