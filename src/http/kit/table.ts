// The one table of the dashboard and the portal: a table on wide screens, a card per row on
// narrow ones (each cell under its column's name, actions in view; nothing scrolls sideways).
import { type Html, type Part as Cell, html } from './html.js';

export interface TableOptions {
  id?: string;
  /** Read by screen readers before the table (what it lists). */
  caption?: string;
}

/** `columns`: each column's name ('' for an actions column); `rows`: each row's cells, in that order. */
export function dataTable(columns: string[], rows: Cell[][], options: TableOptions = {}): Html {
  return html`<table class="cards"${options.id ? html` id="${options.id}"` : ''}>${options.caption ? html`<caption class="visually-hidden">${options.caption}</caption>` : ''}<thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead><tbody>
${rows.map((cells) => html`<tr>${cells.map((cell, index) => html`<td data-label="${columns[index] ?? ''}">${cell}</td>`)}</tr>`)}
</tbody></table>`;
}

/** A link as a table cell shows it: without its scheme (the whole of it in the cell's title and its Copy button). */
export const linkText = (url: string) => url.replace(/^https?:\/\//, '');

/** A long id in a cell: its start and end, the whole in its title (no cell widens or breaks for it). */
const shortId = (id: string) => (id.length > 18 ? `${id.slice(0, 10)}…${id.slice(-6)}` : id);
export const idCell = (id: string | null) => (id ? html`<code title="${id}">${shortId(id)}</code>` : '');
