// The statements a pool's clients send, and their plans: what a request really asked the
// database, explained with the values it was sent with. Structure only, never timings.
import type { Pool } from '../../src/db/infra/pool.js';

export interface SentStatement {
  text: string;
  values: unknown[];
  /** What was being done when it was sent (a route, a function). */
  source: string;
}

/** Records every statement of the pool's clients from now on (install before the pool's first query). */
export function recordStatements(pool: Pool) {
  const sent: SentStatement[] = [];
  let source = 'setup';
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    // node-pg's query has a dozen overloads: (text, values?, callback?) or (config, callback?).
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
      const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
      const given = typeof config === 'string' ? values : ((config as { values?: unknown }).values ?? values);
      if (typeof text === 'string') sent.push({ text, values: Array.isArray(given) ? given : [], source });
      return original(config, values, callback);
    };
  });
  return {
    sent,
    /** Labels the statements sent while `fn` runs. */
    async during<T>(label: string, fn: () => Promise<T>): Promise<T> {
      source = label;
      try {
        return await fn();
      } finally {
        source = 'between';
      }
    },
  };
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Total Cost'?: number;
  Plans?: PlanNode[];
}

/** Every node of the plan, depth first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/**
 * Every sort that reads a scan of `large` (below it, with no Limit between): a sort that grows
 * with the table. A sort of what a Limit already cut (a page, a batch of jobs) is bounded.
 */
export function sortsOfLargeTables(plan: PlanNode, large: Set<string>): string[] {
  const scansBelow = (node: PlanNode): string[] =>
    (node.Plans ?? []).flatMap((child) => {
      if (child['Node Type'] === 'Limit') return [];
      const relation = child['Relation Name'];
      return [...(relation && large.has(relation) ? [relation] : []), ...scansBelow(child)];
    });
  return planNodes(plan)
    .filter((node) => /Sort$/.test(node['Node Type']))
    .flatMap((sort) => scansBelow(sort).map((relation) => `${sort['Node Type']} of ${relation}`));
}

/**
 * Whether the planner asked for JIT compilation: what it does when `jit` is on and the plan's
 * cost is past jit_above_cost (a build without LLVM then skips it; one with LLVM compiles).
 */
export function planAsksForJit(plan: PlanNode, settings: { jit: string; jitAboveCost: number }): boolean {
  return settings.jit === 'on' && settings.jitAboveCost >= 0 && (plan['Total Cost'] ?? 0) > settings.jitAboveCost;
}

/**
 * Every scan in the plan that reads a whole table of `large` (a Seq Scan, or an index scanned
 * from end to end without a condition on it): what a query scoped to one brand must never do.
 */
export function wholeTableScans(plan: PlanNode, large: Set<string>): string[] {
  const found: string[] = [];
  const visit = (node: PlanNode) => {
    const relation = node['Relation Name'];
    if (relation && large.has(relation)) {
      if (node['Node Type'] === 'Seq Scan') found.push(`Seq Scan on ${relation}`);
      if ((node['Node Type'] === 'Index Scan' || node['Node Type'] === 'Index Only Scan') && !node['Index Cond']) found.push(`whole index ${node['Index Name']} of ${relation}`);
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return found;
}

const isRead = (text: string) => /^\s*(SELECT|WITH)\b/i.test(text);

/** Explains each distinct read that was sent (with its first values) and lists the ones that scan a large table whole. */
export async function scansOfLargeTables(pool: Pool, sent: SentStatement[], large: Set<string>): Promise<{ explained: number; offending: string[] }> {
  const seen = new Set<string>();
  const offending: string[] = [];
  for (const statement of sent) {
    if (!isRead(statement.text) || seen.has(statement.text)) continue;
    seen.add(statement.text);
    const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
    const scans = wholeTableScans(rows[0]['QUERY PLAN'][0].Plan, large);
    if (scans.length > 0) offending.push(`${statement.source}: ${scans.join(', ')}\n    ${statement.text.replace(/\s+/g, ' ').slice(0, 400)}`);
  }
  return { explained: seen.size, offending };
}

/** The tables of the public schema with at least `rows` rows (after ANALYZE). */
export async function largeTables(pool: Pool, rows: number): Promise<Set<string>> {
  const { rows: found } = await pool.query(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.reltuples >= $1`,
    [rows],
  );
  return new Set(found.map((r) => r.relname as string));
}
