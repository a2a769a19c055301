// Many rows as one statement's parameters: one array per column, read back as rows by `unnest`
// (numbered with `ord`, the order they were given in).

/** A column of the rows: its name in the statement, its PostgreSQL type, and how to read it off an item. */
export type Column<T> = readonly [name: string, type: string, pick: (item: T) => unknown];

/** `unnest(...) WITH ORDINALITY AS t (...)` over parameters $1.. (one per column), as a FROM item. */
export function unnestRows<T>(columns: readonly Column<T>[]): string {
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  const names = columns.map(([name]) => name).join(', ');
  return `unnest(${arrays}) WITH ORDINALITY AS t (${names}, ord)`;
}

/** The parameters unnestRows reads: each column's values, in the items' order. */
export const columnValues = <T>(columns: readonly Column<T>[], items: readonly T[]): unknown[][] => columns.map(([, , pick]) => items.map(pick));
