// The click's statements, outside any explicit transaction: the lookups read (the link from a
// short-lived cache), and the click with its tracking event, its hourly counter and the
// request's rate-limit count is one INSERT ... WITH statement (atomic by itself).
import type { RateLimitHit, RequestCount } from '../../core/limits.js';
import type { ClickPath, NewClick, NewTrackingEvent } from '../../core/ports.js';
import type { Program, ReferralLink } from '../../core/types.js';
import type { Pool } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';
import { countEventCte } from './hourly-counts.js';
import { LinkCache, type LinkCacheOptions } from './link-cache.js';
import { countRequestCte, toRateLimitHit } from '../infra/rate-limit.js';
import { CLICK_BY_ID, PROGRAM_COLUMNS, toClick, toLink, toProgram } from '../infra/rows.js';

const PROGRAM_FIELDS = PROGRAM_COLUMNS.split(',').map((column) => column.trim());

type LinkWithProgram = { link: ReferralLink; program: Program | null };

export class PgClickPath implements ClickPath {
  private readonly links: LinkCache<LinkWithProgram>;

  constructor(private readonly pool: Pool, linkCache: LinkCacheOptions = { ttlMs: 0 }) {
    this.links = new LinkCache(linkCache);
  }

  findLinkWithProgram(shortLink: string): Promise<LinkWithProgram | null> {
    return this.links.read(shortLink, () => this.readLinkWithProgram(shortLink));
  }

  private async readLinkWithProgram(shortLink: string): Promise<LinkWithProgram | null> {
    const { rows } = await this.pool.query(prepared(LINK_WITH_PROGRAM, [shortLink]));
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

  /**
   * With `count`, the request is counted by the same statement, and the click and its event are
   * written only when the count is within its limit; returns the count (null without one).
   */
  async insertClickWithEvent(click: NewClick, event: Omit<NewTrackingEvent, 'clickId'>, count?: RequestCount): Promise<RateLimitHit | null> {
    const values = [
      click.clickId, click.programId, click.linkId, click.partnerId, click.attributedClickId, click.affiliateUrl,
      click.pageUrl, click.referrerUrl, click.ip, click.userAgent, click.test, click.details, click.createdAt,
      event.programId, event.kind, event.customerId, event.saleId, event.test, event.details, event.createdAt, click.subId,
    ];
    if (!count) {
      await this.pool.query(prepared(INSERT_CLICK, values));
      return null;
    }
    const { rows } = await this.pool.query(prepared(COUNT_AND_INSERT_CLICK, [...values, count.counter, count.windowStart, count.windowEnd, count.rule.limit]));
    return toRateLimitHit(rows[0]);
  }
}

const CLICK_COLUMNS = `click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, page_url,
                       referrer_url, ip, user_agent, test, details, created_at, sub_id`;
// The sub-ID is the last parameter ($21): the statements' other numbers stay as they were.
const CLICK_VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9::inet, $10, $11, $12, $13, $21';

/** The click's INSERT as a CTE `click`, with its hourly counter; with `onlyWhen` (FROM … WHERE …), written only then. */
const clickCte = (onlyWhen?: string) => `click AS (
         INSERT INTO clicks (${CLICK_COLUMNS})
         ${onlyWhen ? `SELECT ${CLICK_VALUES} ${onlyWhen}` : `VALUES (${CLICK_VALUES})`}
         RETURNING click_id
       ), ${countEventCte('$14', '$15', '$20', '$18', onlyWhen ? 'click' : undefined)}`;

/** The click's tracking event, written when (and because) the click was. */
const EVENT_OF_CLICK = `INSERT INTO tracking_events (program_id, kind, customer_id, click_id, sale_id, test, details, created_at)
       SELECT $14, $15, $16, click.click_id, $17, $18, $19, $20 FROM click`;

// The statements' texts are made once: `prepared` names a statement by its text.
const LINK_WITH_PROGRAM = `SELECT l.id AS link_id, l.short_link, l.program_id AS link_program_id, l.partner_id, l.enabled,
              ${PROGRAM_FIELDS.map((column) => `p.${column} AS p_${column}`).join(', ')}
         FROM referral_links l LEFT JOIN programs p ON p.id = l.program_id
        WHERE lower(l.short_link) = lower($1)
        ORDER BY l.short_link = $1 DESC, l.case_twin
        LIMIT 1`;
const INSERT_CLICK = `WITH ${clickCte()} ${EVENT_OF_CLICK}`;
// Within the limit is `hits <= limit`, the converse of core's overLimit (the statement decides what it writes).
const COUNT_AND_INSERT_CLICK = `WITH ${countRequestCte('$22', '$23', '$24')}, ${clickCte('FROM hit WHERE hit.hits <= $25')}, event AS (${EVENT_OF_CLICK})
       SELECT hits, reset_at FROM hit`;
