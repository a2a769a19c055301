// Importing partners from a CSV (docs/partners.md): columns found by their names (Affix's own
// export, Rewardful's, FirstPromoter's, Tolt's), every row checked, a dry run that writes nothing
// and names each bad row's problem, and a real run that writes the rest in chunks. A person
// already in the program (same email; without email or code, same name) is left as is, so
// importing the same file again changes nothing.
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { errors } from '../core/errors.js';
import { type ImportField, type ImportRow, mapColumns, readImportRow } from '../core/partners.js';
import * as imports from '../db/partner-import.js';
import { withTransaction } from '../db/pool.js';
import { type ManagementDeps, type Scope, audit, parseInput, programInScope } from './management.js';
import { FORM_BOOLEAN } from './payouts.js';

export const IMPORT_MAX_ROWS = 50_000;
const CHUNK = 500;

export const importInput = z.object({
  csv: z.string({ error: 'Give the CSV file.' }).min(1, 'The file is empty.').max(20_000_000, 'The file is larger than 20 MB.'),
  dry_run: FORM_BOOLEAN.optional(),
});

export type RowOutcome = 'create' | 'unchanged' | 'add_link';

export interface ImportReport {
  dry_run: boolean;
  rows: number;
  /** Which column each field was read from. */
  columns: Partial<Record<ImportField, string>>;
  create: number;
  add_link: number;
  unchanged: number;
  /** Every bad row, by its line in the file, with all its problems. Nothing of it is written. */
  problems: { line: number; problems: string[] }[];
  written?: { partners: number; links: number };
}

interface CheckedRow {
  row: ImportRow;
  outcome: RowOutcome;
  groupId: number | null;
  existingPartnerId: number | null;
}

function readCsv(text: string): string[][] {
  try {
    return parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, trim: false }) as string[][];
  } catch (error) {
    throw errors.invalid(`The file is not a CSV this import can read: ${(error as Error).message.slice(0, 200)}`, { csv: 'The file is not a CSV this import can read.' });
  }
}

/**
 * A row's identity in the program: its email; without one, its referral code (a new partner each);
 * with neither, its name among the program's partners without an email (case ignored), so the
 * same file again finds the partner it made.
 */
const identifiedByName = (row: ImportRow): boolean => !row.email && !row.code;

/** Checks every row against the file itself and the program; the dry run stops here. */
async function checkRows(deps: ManagementDeps, programId: number, records: string[][]) {
  const [header = [], ...body] = records;
  const mapping = mapColumns(header);
  if (mapping.email === undefined && mapping.name === undefined && mapping.first_name === undefined) {
    throw errors.invalid('No column of the file is a name or an email (expected headers like name, first_name, last_name, email)', {
      csv: 'No column of the file is a name or an email (expected headers like name, first_name, last_name, email).',
    });
  }
  if (body.length > IMPORT_MAX_ROWS) throw errors.invalid(`At most ${IMPORT_MAX_ROWS} rows per file`, { csv: `At most ${IMPORT_MAX_ROWS} rows per file: split it.` });
  const problems: ImportReport['problems'] = [];
  const read: ImportRow[] = [];
  const seenEmail = new Map<string, number>();
  const seenCode = new Map<string, number>();
  const seenName = new Map<string, number>();
  body.forEach((cells, index) => {
    const line = index + 2; // the header is line 1
    const result = readImportRow(cells, mapping, line);
    if ('problems' in result) return problems.push({ line, problems: result.problems });
    const rowProblems: string[] = [];
    const email = result.row.email?.toLowerCase();
    if (email && seenEmail.has(email)) rowProblems.push(`same email as line ${seenEmail.get(email)}`);
    const codeKey = result.row.code?.toLowerCase();
    if (codeKey && seenCode.has(codeKey)) rowProblems.push(`same referral code as line ${seenCode.get(codeKey)}`);
    const nameKey = identifiedByName(result.row) ? result.row.name.toLowerCase() : undefined;
    if (nameKey && seenName.has(nameKey)) rowProblems.push(`same name as line ${seenName.get(nameKey)} (a row without email or code is known by its name)`);
    if (rowProblems.length) return problems.push({ line, problems: rowProblems });
    if (email) seenEmail.set(email, line);
    if (codeKey) seenCode.set(codeKey, line);
    if (nameKey) seenName.set(nameKey, line);
    read.push(result.row);
  });
  const lookups = await imports.importLookups(
    deps.pool,
    programId,
    read.flatMap((r) => (r.email ? [r.email] : [])),
    read.flatMap((r) => (r.code ? [r.code] : [])),
    read.flatMap((r) => (identifiedByName(r) ? [r.name] : [])),
  );
  const checked: CheckedRow[] = [];
  for (const row of read) {
    const rowProblems: string[] = [];
    const groupId = row.group ? (lookups.groupBySlug.get(row.group.toLowerCase()) ?? null) : null;
    if (row.group && groupId === null) rowProblems.push(`no group "${row.group.slice(0, 60)}" in this program`);
    const existingPartnerId = row.email
      ? (lookups.partnerByEmail.get(row.email.toLowerCase()) ?? null)
      : identifiedByName(row)
        ? (lookups.unmailedByName.get(row.name.toLowerCase()) ?? null)
        : null;
    const holder = row.code ? lookups.codeHolder.get(row.code.toLowerCase()) : undefined;
    // A code is global (a referral URL resolves without a program): one held elsewhere is refused, as a link made by hand would be.
    if (holder && !(holder.programId === programId && holder.partnerId !== null && holder.partnerId === existingPartnerId)) {
      rowProblems.push(`referral code "${row.code}" is already taken`);
    }
    if (rowProblems.length) {
      problems.push({ line: row.line, problems: rowProblems });
      continue;
    }
    const outcome: RowOutcome = existingPartnerId === null ? 'create' : row.code && !holder ? 'add_link' : 'unchanged';
    checked.push({ row, outcome, groupId, existingPartnerId });
  }
  problems.sort((a, b) => a.line - b.line);
  const columns = Object.fromEntries(Object.entries(mapping).map(([field, index]) => [field, header[index!]])) as ImportReport['columns'];
  return { checked, problems, columns, rows: body.length };
}

export async function importPartners(deps: ManagementDeps, scope: Scope, programId: number, input: unknown): Promise<ImportReport> {
  await programInScope(deps, scope, programId);
  const body = parseInput(importInput, input);
  const { checked, problems, columns, rows } = await checkRows(deps, programId, readCsv(body.csv));
  const count = (outcome: RowOutcome) => checked.filter((c) => c.outcome === outcome).length;
  const report: ImportReport = { dry_run: body.dry_run ?? false, rows, columns, create: count('create'), add_link: count('add_link'), unchanged: count('unchanged'), problems };
  if (report.dry_run) return report;
  const written = { partners: 0, links: 0 };
  const toWrite = checked.filter((c) => c.outcome !== 'unchanged');
  for (let i = 0; i < toWrite.length; i += CHUNK) {
    const chunk = toWrite.slice(i, i + CHUNK);
    await withTransaction(deps.pool, async (client) => {
      const fresh = chunk.filter((c) => c.outcome === 'create');
      const ids = await imports.insertImported(
        client,
        programId,
        fresh.map((c) => ({ name: c.row.name, email: c.row.email, groupId: c.groupId, tags: c.row.tags, payoutMethod: c.row.payoutMethod, payoutReference: c.row.payoutReference })),
      );
      written.partners += ids.filter((id) => id !== null).length;
      await audit(client, scope, ids.flatMap((id) => (id === null ? [] : [{ programId, action: 'partner.imported', objectType: 'partner', objectId: id }])));
      const links = [
        ...fresh.flatMap((c, index) => (c.row.code && ids[index] ? [{ partnerId: ids[index]!, code: c.row.code }] : [])),
        ...chunk.filter((c) => c.outcome === 'add_link').map((c) => ({ partnerId: c.existingPartnerId!, code: c.row.code! })),
      ];
      const taken = await imports.insertImportedLinks(client, programId, links);
      written.links += links.length - taken.length;
    });
  }
  report.written = written;
  return report;
}
