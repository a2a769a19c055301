// The click's statements, outside any explicit transaction: the lookups read, and the click
// with its tracking event is one INSERT ... WITH statement (atomic by itself).
import type { ClickPath, NewClick, NewTrackingEvent } from '../core/ports.js';
import type { Pool } from './pool.js';
import { prepared } from './prepared.js';
import { countEventCte } from './hourly-counts.js';
import { CLICK_BY_ID, PROGRAM_COLUMNS, toClick, toLink, toProgram } from './rows.js';

const PROGRAM_FIELDS = PROGRAM_COLUMNS.split(',').map((column) => column.trim());

export class PgClickPath implements ClickPath {
  constructor(private readonly pool: Pool) {}

  async findLinkWithProgram(shortLink: string) {
    const { rows } = await this.pool.query(prepared(
      `SELECT l.id AS link_id, l.short_link, l.program_id AS link_program_id, l.partner_id, l.enabled,
              ${PROGRAM_FIELDS.map((column) => `p.${column} AS p_${column}`).join(', ')}
         FROM referral_links l LEFT JOIN programs p ON p.id = l.program_id
        WHERE l.short_link = $1`,
      [shortLink],
    ));
    const row = rows[0];
    if (!row) return null;
    const link = toLink({ id: row.link_id, short_link: row.short_link, program_id: row.link_program_id, partner_id: row.partner_id, enabled: row.enabled });
    const program = row.p_id === null ? null : toProgram(Object.fromEntries(PROGRAM_FIELDS.map((column) => [column, row[`p_${column}`]])));
    return { link, program };
  }

  async findClick(clickId: string) {
    const { rows } = await this.pool.query(prepared(CLICK_BY_ID, [clickId]));
    return rows[0] ? toClick(rows[0]) : null;
  }

  async insertClickWithEvent(click: NewClick, event: Omit<NewTrackingEvent, 'clickId'>): Promise<void> {
    await this.pool.query(prepared(
      `WITH click AS (
         INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, page_url,
                             referrer_url, ip, user_agent, test, details, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::inet, $10, $11, $12, $13)
         RETURNING click_id
       ), ${countEventCte('$14', '$15', '$20')}
       INSERT INTO tracking_events (program_id, kind, customer_id, click_id, sale_id, test, details, created_at)
       SELECT $14, $15, $16, click.click_id, $17, $18, $19, $20 FROM click`,
      [
        click.clickId, click.programId, click.linkId, click.partnerId, click.attributedClickId, click.affiliateUrl,
        click.pageUrl, click.referrerUrl, click.ip, click.userAgent, click.test, click.details, click.createdAt,
        event.programId, event.kind, event.customerId, event.saleId, event.test, event.details, event.createdAt,
      ],
    ));
  }
}
