// Team roles (docs/team.md): who may do what is written down three times — the table in
// docs/team.md, the table below, the map in src/core/permissions.ts — and the three must be equal,
// so none changes alone. Every dashboard route, read from the router itself (not a hand list), is
// in the map; with each of the four roles, every route answers the guard's 403 exactly when the
// written table says the role may not — reads included. A viewer never sees a partner's email or
// payout details; a removed member's session ends.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDashboardSession } from '../src/app/accounts/access.js';
import { DASHBOARD_ROUTES, PERMISSIONS, type Permission, ROLES, type Role, allows } from '../src/core/permissions.js';
import { PgStore } from '../src/db/tracking/store.js';
import { dashboardRoutes } from '../src/http/dashboard/routes.js';
import { loadConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/logger.js';
import { createMailer } from '../src/platform/mailer.js';
import { type SeededProgram, type TestApi, type TestDatabase } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';

/** Who may do what, from docs/team.md ("What each role may do"): the expectation, written down. */
const MAY: Record<string, readonly Role[]> = {
  read: ['owner', 'admin', 'finance', 'viewer'],
  read_people: ['owner', 'admin', 'finance'],
  programs: ['owner', 'admin'],
  partners: ['owner', 'admin'],
  links: ['owner', 'admin'],
  keys: ['owner', 'admin'],
  webhooks: ['owner', 'admin'],
  stripe: ['owner', 'admin'],
  commissions: ['owner', 'finance'],
  payouts: ['owner', 'finance'],
  payout_providers: ['owner', 'admin', 'finance'],
  team: ['owner'],
  team_sign_ins: ['owner', 'admin'],
};

/** Whether the written table lets a role through a route's permission (`signed_in`: any member). */
const mayByTable = (role: Role, permission: Permission): boolean => {
  if (permission === 'public' || permission === 'signed_in') return true;
  const roles = MAY[permission];
  if (!roles) throw new Error(`${permission} is in the map but not in the written table`);
  return roles.includes(role);
};

/** The table of docs/team.md: permission -> the roles with "yes", columns named by its header. */
function docsTable(): Record<string, Role[]> {
  const lines = readFileSync(new URL('../docs/team.md', import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Permission |'));
  if (start < 0) throw new Error('docs/team.md has no "| Permission |" table');
  const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());
  const roles = cells(lines[start]!).slice(2);
  expect(roles).toEqual([...ROLES]);
  const table: Record<string, Role[]> = {};
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [name, , ...answers] = cells(line);
    const permission = name!.replace(/`/g, '');
    expect(answers.every((a) => a === 'yes' || a === 'no'), line).toBe(true);
    table[permission] = roles.filter((_, i) => answers[i] === 'yes') as Role[];
  }
  return table;
}

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
const cookies = new Map<Role, string>();
const memberIds = new Map<Role, number>();

useSeededApi({ env: { AFFIX_SECRET_KEY: 'roles-test-secret-key-0123456789' }, options: { queueUrl: 'own' }, programs: [{}] }, (t) => ({ db, api, programs: [shop] } = t));
beforeAll(async () => {
  await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/partners/${shop.partnerId}`, { body: { email: 'secret.partner@creators.test' }, headers: { Authorization: 'Bearer test-admin-token-0123456789' } });
  await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/partners/${shop.partnerId}/payout-details`, {
    body: { payout_method: 'paypal', payout_reference: 'secret.paypal@creators.test' },
    headers: { Authorization: 'Bearer test-admin-token-0123456789' },
  });
  await apiSale(api, shop, 10_000);
  for (const role of ROLES) {
    const { rows } = await db.pool.query(
      "INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, $3, now()) RETURNING id",
      [shop.accountId, `${role}@team.test`, role],
    );
    memberIds.set(role, Number(rows[0].id));
    const { token } = await openDashboardSession(db.pool, shop.accountId, new Date(), Number(rows[0].id));
    cookies.set(role, `affix_dashboard=${token}`);
  }
});

/** Every route the dashboard registers: method and Express path, from the router's own stack. */
function registeredRoutes(): { method: string; path: string }[] {
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', AFFIX_SECRET_KEY: 'roles-test-secret-key-0123456789' });
  const logger = createLogger('silent');
  const router = dashboardRoutes({ config, pool: db.pool, store: new PgStore(db.pool), logger, mailer: createMailer(config.mail, logger) }) as unknown as {
    stack: { route?: { path: string; methods: Record<string, boolean> } }[];
  };
  return router.stack.flatMap((layer) =>
    layer.route ? Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]).map((m) => ({ method: m.toUpperCase(), path: layer.route!.path })) : [],
  );
}

const fill = (path: string) =>
  path
    .replace(':id', String(shop.programId))
    .replace(':partnerId', String(shop.partnerId))
    .replace(':keyId', String(shop.keyId))
    .replace(/:\w+/g, '999999');

describe('who may do what: docs, this test and the map agree', () => {
  it('the table in docs/team.md equals the table written here', () => {
    expect(docsTable()).toEqual(MAY);
  });

  it('the map in src/core/permissions.ts equals the table written here, role by role', () => {
    expect(Object.keys(PERMISSIONS).sort()).toEqual(Object.keys(MAY).sort());
    const differences: string[] = [];
    for (const permission of Object.keys(PERMISSIONS) as (keyof typeof PERMISSIONS)[]) {
      for (const role of ROLES) if (allows(role, permission) !== MAY[permission]!.includes(role)) differences.push(`${role} ${permission}: the map says ${allows(role, permission) ? 'yes' : 'no'}`);
    }
    expect(differences).toEqual([]);
  });

  it('the actions that matter most go to the roles docs/team.md names', () => {
    const D = '/dashboard/programs/:id';
    const ACTIONS: [string, string, Role[]][] = [
      ['approve a commission', `POST ${D}/commissions/:commissionId/approve`, ['owner', 'finance']],
      ['reject a commission', `POST ${D}/commissions/:commissionId/reject`, ['owner', 'finance']],
      ['approve or reject commissions in bulk', `POST ${D}/commissions/bulk`, ['owner', 'finance']],
      ['run payouts', `POST ${D}/payouts/run`, ['owner', 'finance']],
      ['mark a payout paid', `POST ${D}/payouts/:payoutId/paid`, ['owner', 'finance']],
      ['export a payout batch', `GET ${D}/payouts/batches/:batchId/export.csv`, ['owner', 'finance']],
      ['download the partners as CSV', `GET ${D}/partners.csv`, ['owner', 'admin', 'finance']],
      ['read the audit log', `GET ${D}/audit`, ['owner', 'admin', 'finance']],
      ['ban or approve partners in bulk', `POST ${D}/partners/bulk`, ['owner', 'admin']],
      ['see the API keys', `GET ${D}/keys`, ['owner', 'admin']],
      ['change the program', `POST ${D}/settings`, ['owner', 'admin']],
      ['invite a team member', 'POST /dashboard/team/invite', ['owner']],
      ['change a member\'s role', 'POST /dashboard/team/:memberId/role', ['owner']],
      ['read the partners page', `GET ${D}/partners`, ['owner', 'admin', 'finance', 'viewer']],
      ['read the payouts page', `GET ${D}/payouts`, ['owner', 'admin', 'finance', 'viewer']],
    ];
    const wrong: string[] = [];
    for (const [action, route, roles] of ACTIONS) {
      const permission = DASHBOARD_ROUTES[route];
      if (!permission) wrong.push(`${action}: ${route} is not in the map`);
      else for (const role of ROLES) if (allows(role, permission) !== roles.includes(role)) wrong.push(`${role} may${allows(role, permission) ? '' : ' not'} ${action} (${permission})`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('the permission map', () => {
  it('names every registered dashboard route, and every route it names is registered', () => {
    const routes = registeredRoutes().map((r) => `${r.method} ${r.path}`);
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.filter((r) => !(r in DASHBOARD_ROUTES))).toEqual([]);
    expect(Object.keys(DASHBOARD_ROUTES).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it('each route × each role: the guard refuses (403) exactly where the written table says no', async () => {
    const routes = registeredRoutes().filter((r) => DASHBOARD_ROUTES[`${r.method} ${r.path}`] !== 'public');
    const mismatches: string[] = [];
    let checked = 0;
    for (const role of ROLES) {
      for (const route of routes) {
        const permission = DASHBOARD_ROUTES[`${route.method} ${route.path}`]!;
        const reply = await fetch(`${api.url}${fill(route.path)}`, {
          method: route.method,
          redirect: 'manual',
          headers: { cookie: cookies.get(role)!, 'content-type': 'application/x-www-form-urlencoded', origin: api.url },
          body: route.method === 'GET' ? undefined : '',
        });
        const text = await reply.text();
        const refusedByGuard = reply.status === 403 && text.includes(`Your role (${role}) does not allow this`);
        if (refusedByGuard === mayByTable(role, permission)) mismatches.push(`${role} ${route.method} ${route.path} (${permission}): the guard ${refusedByGuard ? 'refused' : 'let it through'} (${reply.status})`);
        checked += 1;
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBe(routes.length * 4);
  });
});

describe('the API keys pages are owner and admin only', () => {
  it('docs/team.md says so for finance and viewer, and the role words the team page shows agree', async () => {
    const { ROLE_WORDS } = await import('../src/core/permissions.js');
    const summary = readFileSync(new URL('../docs/team.md', import.meta.url), 'utf8').split('\n');
    for (const role of ['finance', 'viewer'] as const) {
      const row = summary.find((line) => line.startsWith(`| ${role} |`));
      expect(row, role).toContain('not the API keys page (owner and admin only)');
      expect(ROLE_WORDS[role], role).toContain('API keys');
    }
  });

  it('finance and viewer get 403 on every keys route (GET and POST) and nothing changes; owner and admin get through', async () => {
    const base = `/dashboard/programs/${shop.programId}/keys`;
    const routes: [string, string][] = [
      ['GET', base],
      ['GET', `${base}/${shop.keyId}/regenerate`],
      ['POST', base],
      ['POST', `${base}/${shop.keyId}/regenerate`],
      ['POST', `${base}/${shop.keyId}/rotate`],
    ];
    const keysNow = async () => (await db.pool.query('SELECT id, revoked_at, rotate_by FROM api_keys WHERE program_id = $1 ORDER BY id', [shop.programId])).rows;
    const before = await keysNow();
    for (const role of ['finance', 'viewer'] as const) {
      for (const [method, path] of routes) {
        const reply = await fetch(`${api.url}${path}`, {
          method, redirect: 'manual',
          headers: { cookie: cookies.get(role)!, 'content-type': 'application/x-www-form-urlencoded', origin: api.url },
          body: method === 'GET' ? undefined : `rotate_by_${shop.keyId}=2999-01-01`,
        });
        expect(reply.status, `${role} ${method} ${path}`).toBe(403);
        expect(await reply.text(), `${role} ${method} ${path}`).toContain(`Your role (${role}) does not allow this`);
      }
    }
    expect(await keysNow()).toEqual(before);
    for (const role of ['owner', 'admin'] as const) {
      const page = await fetch(`${api.url}${base}`, { headers: { cookie: cookies.get(role)! } });
      expect(page.status, role).toBe(200);
    }
  });
});

describe('the admin API', () => {
  it("every admin route is in the map (the operator's), and none answers a member's session", async () => {
    const { adminRoutes } = await import('../src/http/routes/admin.js');
    const { ADMIN_ROUTES } = await import('../src/core/permissions.js');
    const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', AFFIX_ADMIN_TOKEN: 'x'.repeat(24) });
    const logger = createLogger('silent');
    const router = adminRoutes({ config, pool: db.pool, store: new PgStore(db.pool), logger, mailer: createMailer(config.mail, logger) }) as unknown as {
      stack: { route?: { path: string; methods: Record<string, boolean> } }[];
    };
    const routes = router.stack.flatMap((l) => (l.route ? Object.keys(l.route.methods).map((m) => ({ method: m.toUpperCase(), path: l.route!.path })) : []));
    expect(routes.length).toBeGreaterThan(50);
    expect(routes.filter((r) => !(`${r.method} ${r.path}` in ADMIN_ROUTES))).toEqual([]);
    expect(Object.keys(ADMIN_ROUTES).filter((k) => !routes.some((r) => `${r.method} ${r.path}` === k))).toEqual([]);
    for (const route of routes) {
      const reply = await fetch(`${api.url}${fill(route.path)}`, { method: route.method, headers: { cookie: cookies.get('owner')! } });
      expect(reply.status, `${route.method} ${route.path}`).toBe(401);
    }
  });
});

describe('addresses that do not exist', () => {
  it('answer a signed-in browser with an HTML page, not JSON', async () => {
    const reply = await fetch(`${api.url}/dashboard/no-such-page`, { headers: { cookie: cookies.get('viewer')! } });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toContain('text/html');
    expect(await reply.text()).toContain('There is no such page');
  });

  it('a failure of ours answers a browser with an HTML page naming the reference, and nothing else', async () => {
    // The overview's numbers cannot be read: a failure of ours (not the database being away).
    await db.pool.query('ALTER TABLE page_rollups RENAME TO page_rollups_away');
    try {
      const reply = await fetch(`${api.url}/dashboard/programs/${shop.programId}`, { headers: { cookie: cookies.get('viewer')! } });
      expect(reply.status).toBe(500);
      expect(reply.headers.get('content-type')).toContain('text/html');
      const text = await reply.text();
      expect(text).toMatch(/Something went wrong on our side, and nothing was changed by it\. .* give us this reference: [\w-]+\./);
      expect(text).not.toContain('page_rollups');
    } finally {
      await db.pool.query('ALTER TABLE page_rollups_away RENAME TO page_rollups');
    }
  });
});

describe('what each role sees', () => {
  it("a viewer reads the program but never a partner's email or payout details; finance sees them", async () => {
    const page = async (role: Role, path: string) => (await fetch(`${api.url}${path}`, { headers: { cookie: cookies.get(role)! } })).text();
    const base = `/dashboard/programs/${shop.programId}`;
    for (const path of [`${base}/partners`, `${base}/partners/${shop.partnerId}`, `${base}/payouts`]) {
      const viewer = await page('viewer', path);
      expect(viewer, path).not.toContain('secret.partner@creators.test');
      expect(viewer, path).not.toContain('secret.paypal@creators.test');
    }
    expect(await page('viewer', `${base}/partners`)).toContain('email hidden for your role');
    expect(await page('finance', `${base}/partners`)).toContain('secret.partner@creators.test');
    expect(await page('finance', `${base}/payouts`)).toContain('secret.paypal@creators.test');
    const keys = await fetch(`${api.url}${base}/keys`, { headers: { cookie: cookies.get('finance')! } });
    expect(keys.status).toBe(403);
    expect(await keys.text()).toContain('Your role (finance) does not allow this');
  });

  it("a removed member's session ends at once", async () => {
    const { rows } = await db.pool.query("INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, 'leaving@team.test', 'admin', now()) RETURNING id", [shop.accountId]);
    const { token } = await openDashboardSession(db.pool, shop.accountId, new Date(), Number(rows[0].id));
    const before = await fetch(`${api.url}/dashboard`, { headers: { cookie: `affix_dashboard=${token}` }, redirect: 'manual' });
    expect(before.status).toBe(200);
    const owner = await openDashboardSession(db.pool, shop.accountId, new Date());
    const teamPage = await fetch(`${api.url}/dashboard/team`, { headers: { cookie: `affix_dashboard=${owner.token}` } });
    const jar = [`affix_dashboard=${owner.token}`, ...teamPage.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await teamPage.text())![1]!;
    const removed = await fetch(`${api.url}/dashboard/team/${rows[0].id}/remove`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded', origin: api.url },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(removed.status).toBe(303);
    const after = await fetch(`${api.url}/dashboard`, { headers: { cookie: `affix_dashboard=${token}` }, redirect: 'manual' });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/dashboard/login');
  });
});

describe('CLI tokens act as their member', () => {
  it("a viewer's token lists programs but cannot create one; an admin's can; a removed member's token stops", async () => {
    const { insertLoginToken } = await import('../src/db/accounts/cli-logins.js');
    const tokens = new Map<Role, string>();
    for (const role of ['viewer', 'admin'] as const) {
      const token = `affix_cli_roles_${role}_${Date.now()}`;
      await insertLoginToken(db.pool, token, shop.accountId, new Date(Date.now() + 3_600_000), memberIds.get(role)!);
      tokens.set(role, token);
    }
    const call = (role: Role, method: string, path: string, body?: unknown) =>
      api.request(method, path, { body, headers: { Authorization: `Bearer ${tokens.get(role)}` } });
    expect((await call('viewer', 'GET', '/api/v1/cli/programs')).status).toBe(200);
    const refused = await call('viewer', 'POST', '/api/v1/cli/init', { name: 'Nope', domain: 'nope.example.com', commission_type: 'percent', commission_rate: 10 });
    expect(refused.status).toBe(403);
    const made = await call('admin', 'POST', '/api/v1/cli/init', { name: 'By the admin', domain: 'admin.example.com', commission_type: 'percent', commission_rate: 10 });
    expect(made.status).toBe(201);
    const audit = await db.pool.query("SELECT actor_type, actor_label FROM audit_log WHERE action = 'program.created' AND program_id = $1", [made.body.data.program_id]);
    expect(audit.rows).toEqual([{ actor_type: 'cli_token', actor_label: 'admin@team.test' }]);
    await db.pool.query('UPDATE account_members SET removed_at = now() WHERE id = $1', [memberIds.get('viewer')]);
    expect((await call('viewer', 'GET', '/api/v1/cli/programs')).status).toBe(401);
  });
});
