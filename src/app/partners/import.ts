// Importing partners from a CSV (docs/partners.md): columns found by their names (Affix's own
// export, Rewardful's, FirstPromoter's, Tolt's), columns the brand ignores left out, each source
// group/campaign mapped to a group (an existing one, a new one, none), every row checked, a dry
// run that writes nothing and names each bad row's problem, and a real run that writes the new
// groups and the rows in one transaction. A person already in the program (same email; without
// email or code, same name) is left as is, and a new group whose name is there is that group, so
// importing the same file with the same mapping again changes nothing.
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { decodeCsvBytes } from '../../core/csv-encoding.js';
import { errors } from '../../core/errors.js';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from '../../core/names.js';
import {
  type GroupTarget,
  type ImportField,
  type ImportRow,
  type SourceGroup,
  groupSlugOf,
  mapColumns,
  normalizeColumn,
  readImportRow,
  resolveGroupMapping,
} from '../../core/partners.js';
import * as imports from '../../db/partners/import.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { FORM_BOOLEAN } from '../money/payout-settings.js';

export const IMPORT_MAX_ROWS = 50_000;
const CHUNK = 500;

/** A query parameter or form field may carry the mapping as JSON text. */
const jsonText = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

const groupTarget: z.ZodType<GroupTarget> = z.union([
  z.null(),
  z.object({ group: z.union([z.string().trim().min(1).max(200), z.number().int().positive().transform(String)]) }).strict(),
  z
    .object({
      new_group: z
        .string()
        .trim()
        .min(1, 'Give the new group a name.')
        .max(100, 'A group name has at most 100 characters.')
        .refine((name) => !hasControlCharacter(name), `A group name ${NO_CONTROL_CHARACTERS}.`),
    })
    .strict(),
], { error: 'Map each value to {"group": "<name or id>"}, {"new_group": "<name>"} or null (no group).' });

export const importInput = z.object({
  csv: z.string({ error: 'Give the CSV file.' }).min(1, 'The file is empty.').max(20_000_000, 'The file is larger than 20 MB.'),
  dry_run: FORM_BOOLEAN.optional(),
  /** Each value of the file's group/campaign column -> where its rows go. */
  group_mapping: z.preprocess(
    jsonText,
    z.record(z.string().max(500), groupTarget, { error: 'group_mapping is an object: {"<value in the file>": {"group": …} | {"new_group": …} | null}.' }),
  ).optional(),
  /** Columns of the file left out (by their header). */
  ignore_columns: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.split(',').map((c) => c.trim()).filter(Boolean) : value),
      z.array(z.string().max(200), { error: 'ignore_columns is a list of column names.' }).max(200),
    )
    .optional(),
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
  /** The file's header, as it is. */
  file_columns: string[];
  /** The columns left out (ignore_columns). */
  ignored_columns: string[];
  /** Each distinct value of the group column, its rows and where they go (unmapped: refused, as without a mapping). */
  groups: SourceGroup[];
  /** The first good rows as they will be read, with what happens to each. */
  sample: { line: number; name: string; email: string | null; code: string | null; group: string | null; outcome: RowOutcome }[];
  written?: { partners: number; links: number; groups: number };
}

interface CheckedRow {
  row: ImportRow;
  outcome: RowOutcome;
  groupId: number | null;
  /** The name of the group the import makes for this row (its source maps to a new group). */
  newGroup: string | null;
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

/** Checks every row against the file itself, the program and the group mapping; the dry run stops here. */
async function checkRows(deps: ManagementDeps, programId: number, records: string[][], groupMapping: Record<string, GroupTarget>, ignoreColumns: string[]) {
  const [header = [], ...body] = records;
  const ignored = new Set<number>();
  const ignoreProblems: string[] = [];
  for (const column of ignoreColumns) {
    const index = header.findIndex((h) => h.trim() === column.trim() || normalizeColumn(h) === normalizeColumn(column));
    if (index < 0) ignoreProblems.push(`no column "${column.slice(0, 60)}" in the file`);
    else ignored.add(index);
  }
  if (ignoreProblems.length) throw errors.invalid(`ignore_columns: ${ignoreProblems.join('; ')}`, { ignore_columns: `${ignoreProblems.join('; ')}.` });
  const mapping = mapColumns(header, ignored);
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
  // Every row's group value counts (a row refused for another reason too): the mapping is about the file.
  const counts = new Map<string, number>();
  if (mapping.group !== undefined) {
    for (const cells of body) {
      const value = (cells[mapping.group] ?? '').trim();
      if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
  }
  const lookups = await imports.importLookups(
    deps.pool,
    programId,
    read.flatMap((r) => (r.email ? [r.email] : [])),
    read.flatMap((r) => (r.code ? [r.code] : [])),
    read.flatMap((r) => (identifiedByName(r) ? [r.name] : [])),
  );
  const resolved = resolveGroupMapping(counts, groupMapping, lookups.groups);
  if (Object.keys(resolved.problems).length) {
    throw errors.invalid(`group_mapping: ${Object.values(resolved.problems).join(' ')}`, resolved.problems);
  }
  const bySource = new Map(resolved.sources.map((s) => [s.source, s]));
  const checked: CheckedRow[] = [];
  for (const row of read) {
    const rowProblems: string[] = [];
    const source = row.group ? bySource.get(row.group) : undefined;
    if (source?.maps_to === 'unmapped') rowProblems.push(`no group "${row.group!.slice(0, 60)}" in this program`);
    const groupId = source?.group_id ?? null;
    const newGroup = source?.maps_to === 'new' ? source.group_name : null;
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
    checked.push({ row, outcome, groupId, newGroup, existingPartnerId });
  }
  problems.sort((a, b) => a.line - b.line);
  const columns = Object.fromEntries(Object.entries(mapping).map(([field, index]) => [field, header[index!]])) as ImportReport['columns'];
  return { checked, problems, columns, rows: body.length, header, ignored: [...ignored].sort((a, b) => a - b).map((i) => header[i]!), sources: resolved.sources };
}

export async function importPartners(deps: ManagementDeps, scope: Scope, programId: number, input: unknown): Promise<ImportReport> {
  await programInScope(deps, scope, programId);
  const body = parseInput(importInput, input);
  const { checked, problems, columns, rows, header, ignored, sources } = await checkRows(deps, programId, readCsv(body.csv), body.group_mapping ?? {}, body.ignore_columns ?? []);
  const count = (outcome: RowOutcome) => checked.filter((c) => c.outcome === outcome).length;
  const report: ImportReport = {
    dry_run: body.dry_run ?? false,
    rows,
    columns,
    create: count('create'),
    add_link: count('add_link'),
    unchanged: count('unchanged'),
    problems,
    file_columns: header,
    ignored_columns: ignored,
    groups: sources,
    sample: checked.slice(0, 5).map((c) => ({
      line: c.row.line,
      name: c.row.name,
      email: c.row.email,
      code: c.row.code,
      group: c.newGroup ?? (c.groupId === null ? null : (sources.find((x) => x.group_id === c.groupId)?.group_name ?? null)),
      outcome: c.outcome,
    })),
  };
  if (report.dry_run) return report;
  const toWrite = checked.filter((c) => c.outcome !== 'unchanged');
  // One transaction: the new groups and every row, or nothing (a failure leaves no half import).
  report.written = await withTransaction(deps.pool, async (client) => {
    const written = { partners: 0, links: 0, groups: 0 };
    const newNames = [...new Map(toWrite.flatMap((c) => (c.newGroup ? [[c.newGroup.toLowerCase(), c.newGroup] as const] : []))).values()];
    const groups = await imports.insertImportedGroups(client, programId, newNames.map((name) => ({ name, slug: groupSlugOf(name) })));
    if (groups.taken.length) {
      throw errors.invalid(`A group with the address name of "${groups.taken[0]!.slice(0, 60)}" was made meanwhile: check the file again.`, { group_mapping: 'A group was made meanwhile: check the file again.' });
    }
    written.groups = groups.made.length;
    await audit(client, scope, groups.made.map((g) => ({ programId, action: 'group.created', objectType: 'group', objectId: g.id, changes: { name: { from: null, to: g.name }, made_by: { from: null, to: 'import' } } })));
    for (let i = 0; i < toWrite.length; i += CHUNK) {
      const chunk = toWrite.slice(i, i + CHUNK);
      const fresh = chunk.filter((c) => c.outcome === 'create');
      const ids = await imports.insertImported(
        client,
        programId,
        fresh.map((c) => ({
          name: c.row.name,
          email: c.row.email,
          groupId: c.newGroup ? groups.ids.get(c.newGroup.toLowerCase())! : c.groupId,
          tags: c.row.tags,
          payoutMethod: c.row.payoutMethod,
          payoutReference: c.row.payoutReference,
          nameKey: identifiedByName(c.row) ? c.row.name.toLowerCase() : null,
        })),
      );
      written.partners += ids.filter((id) => id !== null).length;
      await audit(client, scope, ids.flatMap((id) => (id === null ? [] : [{ programId, action: 'partner.imported', objectType: 'partner', objectId: id }])));
      const links = [
        ...fresh.flatMap((c, index) => (c.row.code && ids[index] ? [{ partnerId: ids[index]!, code: c.row.code }] : [])),
        ...chunk.filter((c) => c.outcome === 'add_link').map((c) => ({ partnerId: c.existingPartnerId!, code: c.row.code! })),
      ];
      const taken = await imports.insertImportedLinks(client, programId, links);
      written.links += links.length - taken.length;
    }
    return written;
  });
  return report;
}

/** The file's header (its first record), for a form that names its columns. */
export function importFileColumns(csv: string): string[] {
  try {
    return (parse(csv, { bom: true, relax_column_count: true, skip_empty_lines: true, to_line: 1 }) as string[][])[0] ?? [];
  } catch {
    return []; // the import itself names the problem
  }
}

// ---- the dashboard's uploaded file, kept until it is imported ------------------------------------

/** How long an uploaded file waits for its confirmation. */
const IMPORT_FILE_TTL_MS = 60 * 60 * 1000;

/** Decodes the uploaded bytes (refused in words if they cannot be read) and keeps them: the confirm reads these very bytes. */
export async function keepImportFile(deps: ManagementDeps, scope: Scope, programId: number, bytes: Uint8Array): Promise<{ fileId: string; csv: string }> {
  await programInScope(deps, scope, programId);
  const csv = decodeCsvBytes(bytes);
  const now = deps.now();
  const fileId = await imports.keepImportFile(deps.pool, programId, bytes, createHash('sha256').update(bytes).digest('hex'), now, new Date(now.getTime() + IMPORT_FILE_TTL_MS));
  return { fileId, csv };
}

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The text of a kept file of the program, decoded as it was for the dry run. */
export async function keptImportFile(deps: ManagementDeps, scope: Scope, programId: number, fileId: string): Promise<string> {
  await programInScope(deps, scope, programId);
  const kept = FILE_ID.test(fileId) ? await imports.keptImportFile(deps.pool, programId, fileId, deps.now()) : null;
  if (!kept) throw errors.invalid('The checked file is no longer here (it is kept for an hour): choose it again.', { csv: 'The checked file is no longer here (it is kept for an hour): choose it again.' });
  return decodeCsvBytes(kept.bytes);
}
