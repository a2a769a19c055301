// Who can find a partner by an email or a payout reference (docs/team.md, docs/partners.md): a
// search matches them only for a role that may read them. A viewer's search matches names alone,
// wherever a search term reaches partner rows: the partners page, the CSV, a bulk action on
// "every partner the search matches". The expectations are written here, not read from the map.
import { beforeAll, describe, expect, it } from 'vitest';
import { openDashboardSession } from '../src/app/accounts/access.js';
import type { Scope } from '../src/app/accounts/scope.js';
import { exportPartnersCsv, listPartners } from '../src/app/partners/list.js';
import { partnerBulk } from '../src/app/partners/bulk-actions.js';
import { ROLES, type Role, searchMatchesPeople } from '../src/core/permissions.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

/** May this role's search match emails and payout references (docs/team.md)? */
const MATCHES_PEOPLE: Record<Role | 'operator', boolean> = { owner: true, admin: true, finance: true, viewer: false, operator: true };
/** What the partners CSV answers each role (docs/team.md: a viewer has no exports). */
const CSV_STATUS: Record<Role, number> = { owner: 200, admin: 200, finance: 200, viewer: 403 };

const NAME = 'Quiet Harbor';
const EMAIL = 'hidden.owner@creators.test';
const PAYOUT = 'payouts.hidden@wallet.test';
/** Terms that find the partner only through their email or payout reference, never their name. */
const PEOPLE_TERMS = {
  'the exact email': EMAIL,
  'the exact email, other case': 'Hidden.Owner@CREATORS.test',
  'a fragment of the email': 'hidden.owner',
  'the domain of the email': 'creators.test',
  'the exact payout reference': PAYOUT,
  'a fragment of the payout reference': 'payouts.hidden',
};

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
let partnerId: number;
let groupId: number;
const cookies = new Map<Role, string>();

useSeededApi({ env: { AFFIX_SECRET_KEY: 'people-search-secret-key-0123456789' }, programs: [{}] }, (t) => ({ db, api, programs: [shop] } = t));
beforeAll(async () => {
  const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin/programs/${shop.programId}${path}`, { body, headers: adminHeaders });
  partnerId = (await admin('POST', '/partners', { name: NAME, email: EMAIL })).body.data.id;
  expect((await admin('PATCH', `/partners/${partnerId}/payout-details`, { payout_method: 'paypal', payout_reference: PAYOUT })).status).toBe(200);
  groupId = (await admin('POST', '/groups', { name: 'Moved', slug: 'moved', commission_type: 'percent', commission_rate: 10, hold_days: 30 })).body.data.id;
  for (const role of ROLES) {
    const { rows } = await db.pool.query('INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, $3, now()) RETURNING id', [shop.accountId, `${role}@team.test`, role]);
    const { token } = await openDashboardSession(db.pool, shop.accountId, new Date(), Number(rows[0].id));
    cookies.set(role, `affix_dashboard=${token}`);
  }
});

const page = async (role: Role, path: string) => {
  const reply = await fetch(`${api.url}/dashboard/programs/${shop.programId}${path}`, { headers: { cookie: cookies.get(role)! } });
  return { status: reply.status, text: await reply.text() };
};
const rowLink = () => `/dashboard/programs/${shop.programId}/partners/${partnerId}"`;
const scopeOf = (role: Role): Scope => ({ kind: 'account', accountId: shop.accountId, role });
const deps = () => ({ pool: db.pool, secretBox: null, now: () => new Date() });

describe('the one rule', () => {
  it('each role may match emails and payout references exactly as docs/team.md says', () => {
    for (const role of [...ROLES, 'operator'] as const) expect(searchMatchesPeople(role), role).toBe(MATCHES_PEOPLE[role]);
  });
});

describe('the partners page, as every role', () => {
  it("a partner's name finds them for everyone (the search works)", async () => {
    for (const role of ROLES) {
      const { status, text } = await page(role, `/partners?q=${encodeURIComponent('quiet harb')}`);
      expect(status, role).toBe(200);
      expect(text, role).toContain(rowLink());
    }
  });

  it('an email or payout reference finds the partner only for a role that may read people; a viewer gets no match', async () => {
    const found: string[] = [];
    for (const role of ROLES) {
      for (const [what, term] of Object.entries(PEOPLE_TERMS)) {
        const { status, text } = await page(role, `/partners?q=${encodeURIComponent(term)}`);
        expect(status, `${role}: ${what}`).toBe(200);
        if (text.includes(rowLink())) found.push(`${role}: ${what}`);
        else expect(text, `${role}: ${what}`).toContain('No partner matches this search.');
        if (!MATCHES_PEOPLE[role] && !term.includes('@')) {
          // (The page echoes the term searched for; nothing else of theirs may show.)
          expect(text, role).not.toContain(EMAIL);
          expect(text, role).not.toContain(PAYOUT);
        }
      }
    }
    const expected = ROLES.filter((role) => MATCHES_PEOPLE[role]).flatMap((role) => Object.keys(PEOPLE_TERMS).map((what) => `${role}: ${what}`));
    expect(found).toEqual(expected);
  });

  it("the viewer's search box does not offer emails", async () => {
    expect((await page('viewer', '/partners')).text).toContain('Search name</label>');
    expect((await page('finance', '/partners')).text).toContain('Search name, email or payout reference</label>');
  });
});

describe('the CSV, as every role', () => {
  it('finds the partner by email or payout reference for each role that may export; a viewer may not export', async () => {
    for (const role of ROLES) {
      for (const term of [EMAIL, 'hidden.owner', PAYOUT]) {
        const { status, text } = await page(role, `/partners.csv?q=${encodeURIComponent(term)}`);
        expect(status, `${role} ${term}`).toBe(CSV_STATUS[role]);
        if (status === 200) expect(text.split('\r\n').filter((line) => line.startsWith(`${partnerId},`)), `${role} ${term}`).toHaveLength(1);
      }
    }
  });
});

describe('every place a search reaches partner rows decides by the caller\'s role', () => {
  it('the list, the CSV and a bulk action on every matching partner, called as each role', async () => {
    const seen: string[] = [];
    for (const role of ROLES) {
      for (const [what, term] of Object.entries(PEOPLE_TERMS)) {
        const list = await listPartners(deps(), scopeOf(role), shop.programId, { q: term });
        if (list.partners.some((p) => p.id === partnerId)) seen.push(`${role} list: ${what}`);
        let csv = '';
        for await (const chunk of exportPartnersCsv(deps(), scopeOf(role), shop.programId, { q: term })) csv += chunk;
        if (csv.split('\r\n').some((line) => line.startsWith(`${partnerId},`))) seen.push(`${role} csv: ${what}`);
        const bulk = await partnerBulk(deps(), scopeOf(role), shop.programId, { action: 'move_group', group_id: groupId, filter: { q: term } });
        if (bulk.requested > 0) seen.push(`${role} bulk: ${what}`);
      }
    }
    const expected = ROLES.filter((role) => MATCHES_PEOPLE[role]).flatMap((role) =>
      Object.keys(PEOPLE_TERMS).flatMap((what) => [`${role} list: ${what}`, `${role} csv: ${what}`, `${role} bulk: ${what}`]),
    );
    expect(seen.sort()).toEqual(expected.sort());
  });

  it("the admin API is the operator's, which reads people: its search finds by email and payout reference", async () => {
    for (const term of Object.values(PEOPLE_TERMS)) {
      const reply = await api.request('GET', `/api/v1/admin/programs/${shop.programId}/partners?q=${encodeURIComponent(term)}`, { headers: adminHeaders });
      expect(reply.status).toBe(200);
      expect(reply.body.data.partners.map((p: { id: number }) => p.id), term).toEqual([partnerId]);
      expect(reply.body.data.filter).not.toHaveProperty('matchesPeople');
    }
  });
});
