// The dashboard's reward-rule editor (src/app/money/reward-rule-editor.ts, docs/rewards.md), and
// `affix admin reward-rules` against the running test service: one
// edit at a time of a scope's draft, validated by the admin API's own schemas; the first edit
// starts from the published version; the page's read says who published; another brand's
// program and group are refused.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { editDraft, newRuleId, rewardRulesPage } from '../src/app/money/reward-rule-editor.js';
import { publishDraft, putDraft } from '../src/app/money/reward-rules.js';
import { backtest } from '../src/app/money/backtest.js';
import { limitsFromForm, ruleFromForm } from '../src/http/dashboard/rewards-form.js';
import type { ManagementDeps } from '../src/app/programs/management.js';
import type { Scope } from '../src/app/accounts/scope.js';
import { AffixError } from '../src/core/errors.js';
import { openDashboardSession } from '../src/app/accounts/access.js';
import { ADMIN_TOKEN, type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, trackClick, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let mine: SeededProgram;
let theirs: SeededProgram;
let deps: ManagementDeps;
let owner: Scope;

useSeededApi({ programs: [{}, {}] }, (t) => ({ db, api, programs: [mine, theirs] } = t));
beforeAll(async () => {
  deps = { pool: db.pool, secretBox: null, now: () => new Date('2026-06-01T09:00:00Z') };
  owner = { kind: 'account', accountId: mine.accountId, role: 'owner', actor: { type: 'member', id: 'm1', label: 'owner@shop.example', ip: null } };
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => {
      if (!(error instanceof AffixError)) throw error;
      return { status: error.status, fields: error.init.fields ?? null };
    },
  );

const percent = (rate: string, throughMonth: number | null = null) => ({ throughMonth, amount: { type: 'percent', rate } });
const annual = { name: 'Annual plans', event: 'sale', when: { intervals: ['year'] }, duration: { kind: 'months', months: 12 }, steps: [percent('30', 3), percent('20', 12)] };
const germany = { name: 'Germany', event: 'sale', when: { countries: ['DE'] }, duration: { kind: 'lifetime' }, steps: [percent('25')] };

describe('the reward-rule editor', () => {
  it('adds rules with ids from their names, moves and deletes them, saves tiers and a budget', async () => {
    const p = mine.programId;
    await editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: annual });
    await editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: germany });
    await editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: { ...germany, name: 'Germany' } });
    let draft = (await editDraft(deps, owner, p, null, { kind: 'move_rule', key: 1, direction: 'up' })).document;
    expect(draft.rules.map((r) => r.id)).toEqual(['germany', 'annual-plans', 'germany-2']);
    draft = (await editDraft(deps, owner, p, null, { kind: 'delete_rule', key: 2 })).document;
    expect(draft.rules.map((r) => r.name)).toEqual(['Germany', 'Annual plans']);
    draft = (await editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, place: 'default', rule: { name: 'Default', event: 'click', when: { countries: ['FR'] }, duration: { kind: 'lifetime' }, steps: [percent('10')] } })).document;
    // A default is a sale's and takes no conditions, whatever the form sent.
    expect(draft.defaults.sale).toMatchObject({ id: 'default', event: 'sale', when: {} });
    const saved = await editDraft(deps, owner, p, null, { kind: 'limits', limits: { monthlyBudget: { USD: 500_000 }, tiers: [{ name: 'Silver', minCustomers: 0 }, { name: 'Gold', minCustomers: 10 }], tierWindowDays: 30 } });
    expect(saved.document).toMatchObject({ monthlyBudget: { USD: 500_000 }, tierWindowDays: 30, tiers: [{ name: 'Silver' }, { name: 'Gold' }] });
    expect(saved.problems).toEqual([]);
    // Emptied limits are removed.
    expect((await editDraft(deps, owner, p, null, { kind: 'limits', limits: {} })).document).not.toHaveProperty('monthlyBudget');
  });

  it("refuses a rule by the API's schema and the core's checks, naming the field", async () => {
    const p = mine.programId;
    expect(await refusal(editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: { ...germany, steps: [percent('25 percent')] } }))).toMatchObject({
      status: 400, fields: { 'steps.0.amount.rate': 'An amount is a number with at most 4 decimals, as text ("30", "12.5").' },
    });
    // A lead rule names the currency it pays in, said beside the currency field.
    expect(await refusal(editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: { name: 'Signups', event: 'lead', when: {}, duration: { kind: 'lifetime' }, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '5' } }] } }))).toMatchObject({
      status: 400, fields: { currency: 'give the currency a lead reward is paid in.' },
    });
    expect(await refusal(editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: { ...germany, when: { countries: ['de'] } } }))).toMatchObject({
      status: 400, fields: { 'when.countries.0': 'A country is its ISO 3166-1 alpha-2 code in capitals, e.g. DE.' },
    });
    expect(await refusal(editDraft(deps, owner, p, null, { kind: 'save_rule', key: null, rule: { ...annual, steps: [percent('30', 6), percent('20', 3)] } }))).toMatchObject({
      status: 400, fields: { steps: 'its steps must end in later and later months.' },
    });
    expect(await refusal(editDraft(deps, owner, p, null, { kind: 'limits', limits: { tiers: [{ name: '' }] } }))).toMatchObject({ status: 400, fields: { 'tiers.0.name': expect.any(String) } });
  });

  it('edits the draft kept after publishing; the page says who published which version and whether the draft differs', async () => {
    const shop = await seedProgram(api);
    const brand: Scope = { kind: 'account', accountId: shop.accountId, role: 'admin', actor: { type: 'member', id: 'm2', label: 'admin@shop.example', ip: null } };
    await putDraft(deps, brand, shop.programId, { rule_set: { rules: [{ id: 'annual', ...annual }], defaults: {} } });
    await publishDraft(deps, brand, shop.programId, {});
    let page = await rewardRulesPage(deps, brand, shop.programId, null);
    // The draft stays after publishing, the same as the version it made.
    expect(page.draft!.sameAsPublished).toBe(true);
    expect(page.published).toMatchObject({ version: 1, by: 'admin@shop.example' });
    await editDraft(deps, brand, shop.programId, null, { kind: 'save_rule', key: null, rule: germany });
    page = await rewardRulesPage(deps, brand, shop.programId, null);
    expect(page.draft!.sameAsPublished).toBe(false);
    expect(page.draft!.document.rules.map((r) => r.id)).toEqual(['annual', 'germany']);
    expect(page.published!.document.rules.map((r) => r.id)).toEqual(['annual']);
  });

  it("refuses another brand's program and a group of another program", async () => {
    expect(await refusal(editDraft(deps, owner, theirs.programId, null, { kind: 'save_rule', key: null, rule: germany }))).toMatchObject({ status: 404 });
    const group = await api.request('POST', `/api/v1/admin/programs/${theirs.programId}/groups`, { body: { name: 'Theirs', slug: 'theirs', commission_type: 'percent', commission_rate: 10, hold_days: 30 }, headers: adminHeaders });
    expect(await refusal(editDraft(deps, owner, mine.programId, group.body.data.id, { kind: 'save_rule', key: null, rule: germany }))).toMatchObject({ status: 404 });
    expect(await refusal(rewardRulesPage(deps, owner, mine.programId, group.body.data.id))).toMatchObject({ status: 404 });
  });

  it('an edit from a page opened before another manager\'s change touches no other rule; "Set the default" makes one; a changed draft is not published', async () => {
    const shop = await seedProgram(api);
    const brand: Scope = { kind: 'account', accountId: shop.accountId, role: 'owner', actor: { type: 'member', id: 'm3', label: 'owner@stale.example', ip: null } };
    const p = shop.programId;
    await editDraft(deps, brand, p, null, { kind: 'save_rule', key: null, rule: annual });
    await editDraft(deps, brand, p, null, { kind: 'save_rule', key: null, rule: germany });
    // Two pages show "Annual plans" first; the first deletes it, the second's Delete must not take "Germany".
    await editDraft(deps, brand, p, null, { kind: 'delete_rule', key: 0, ruleId: 'annual-plans' });
    expect(await refusal(editDraft(deps, brand, p, null, { kind: 'delete_rule', key: 0, ruleId: 'annual-plans' }))).toMatchObject({ status: 404 });
    expect(await refusal(editDraft(deps, brand, p, null, { kind: 'move_rule', key: 0, ruleId: 'annual-plans', direction: 'down' }))).toMatchObject({ status: 404 });
    expect((await rewardRulesPage(deps, brand, p, null)).draft!.document.rules.map((r) => r.id)).toEqual(['germany']);
    // The page's "Set the default" posts key=default on a draft that has none.
    const withDefault = await editDraft(deps, brand, p, null, { kind: 'save_rule', key: 'default', place: 'default', rule: { name: 'Everything else', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('10')] } });
    expect(withDefault.document.defaults.sale).toMatchObject({ name: 'Everything else' });
    // Publishing pins the draft the publisher saw.
    const seen = (await rewardRulesPage(deps, brand, p, null)).draft!.updatedAt.toISOString();
    // The page was opened a second before another edit (updated_at is the database's clock).
    await db.pool.query("UPDATE reward_rule_sets SET updated_at = updated_at - interval '1 second' WHERE program_id = $1 AND version = 0", [p]);
    await editDraft(deps, brand, p, null, { kind: 'save_rule', key: null, rule: annual });
    expect(await refusal(publishDraft(deps, brand, p, { draft_updated_at: seen }))).toMatchObject({ status: 409 });
    const now = (await rewardRulesPage(deps, brand, p, null)).draft!.updatedAt.toISOString();
    expect(await publishDraft(deps, brand, p, { draft_updated_at: now })).toMatchObject({ version: 1 });
  });

  it('a backtest covers at most 366 days', async () => {
    expect(await refusal(backtest(deps, owner, mine.programId, { from: new Date('2024-01-01T00:00:00Z'), to: new Date('2026-01-01T00:00:00Z') }))).toMatchObject({ status: 400, fields: { from: 'Choose a period of at most 366 days.' } });
  });

  it('keeps every step and tier of a rule set written through the API when the page saves it', () => {
    const form = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [[`step${i + 1}_rate`, String(30 - i)], [`step${i + 1}_through`, i < 4 ? String(i + 1) : ''], [`step${i + 1}_type`, 'percent']]).flat());
    expect((ruleFromForm({ name: 'Five steps', event: 'sale', duration: 'lifetime', ...form }).steps as unknown[]).length).toBe(5);
    const tiers = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`tier${i + 1}_name`, `T${i + 1}`]));
    expect((limitsFromForm(tiers).tiers as unknown[]).length).toBe(6);
  });

  it('gives a rule an unused id from its name', () => {
    const doc = { rules: [{ id: 'annual-plans' }, { id: 'annual-plans-2' }], defaults: {} } as never;
    expect(newRuleId(doc, 'Annual plans!')).toBe('annual-plans-3');
    expect(newRuleId(doc, '***')).toBe('rule');
  });
});

describe('the Rewards page by role', () => {
  it('a viewer reads the rule sets without a form, and the rule form is refused them; an owner gets the forms', async () => {
    const shop = await seedProgram(api);
    await putDraft(deps, { kind: 'operator' }, shop.programId, { rule_set: { rules: [{ id: 'annual', ...annual }], defaults: {} } });
    await publishDraft(deps, { kind: 'account', accountId: shop.accountId, role: 'owner', actor: { type: 'member', id: 'm9', label: 'publisher@rewards.test', ip: null } }, shop.programId, {});
    await editDraft(deps, { kind: 'operator' }, shop.programId, null, { kind: 'save_rule', key: null, rule: germany });
    const cookieOf = async (role: string) => {
      const { rows } = await db.pool.query('INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, $3, now()) RETURNING id', [shop.accountId, `${role}@rewards.test`, role]);
      return `affix_dashboard=${(await openDashboardSession(db.pool, shop.accountId, new Date(), Number(rows[0].id))).token}`;
    };
    const url = `/dashboard/programs/${shop.programId}/rewards`;
    const viewer = await cookieOf('viewer');
    const seen = await api.request('GET', url, { headers: { cookie: viewer } });
    expect(seen.status).toBe(200);
    expect(seen.body).toContain('30 % through month 3, then 20 % through month 12');
    expect(seen.body).not.toContain('/rewards/rule/delete');
    expect(seen.body).not.toContain('Add a rule');
    expect(seen.body).not.toContain('/rewards/publish');
    expect(seen.body).toContain('Run the backtest');
    // Who published is a member's email: not a viewer's to read (docs/team.md).
    expect(seen.body).toContain('Published: version 1');
    expect(seen.body).not.toContain('publisher@rewards.test');
    expect((await api.request('GET', `${url}/rule?key=new`, { headers: { cookie: viewer } })).status).toBe(403);
    const owner = await api.request('GET', url, { headers: { cookie: await cookieOf('owner') } });
    expect(owner.body).toContain('/rewards/rule/delete');
    expect(owner.body).toContain('Publish version 2');
    expect(owner.body).toContain('by publisher@rewards.test');
  });
});

describe('affix admin reward-rules', () => {
  it('writes a draft from a JSON file, shows it with its problems, backtests it and publishes it', async () => {
    const shop = await seedProgram(api);
    const folder = await mkdtemp(join(tmpdir(), 'affix-rules-'));
    const affix = async (args: string[]) => {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['bin/affix.mjs', 'admin', 'reward-rules', ...args], { env: { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_API_URL: api.url } });
        return { code: 0, out: stdout };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, out: `${e.stdout}${e.stderr}` };
      }
    };
    const p = String(shop.programId);
    // A sale paid by the commission type (20 %), inside the backtest's default 90 days.
    const clickId = await trackClick(api, shop.affiliateUrl);
    expect((await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: 'cli_rules_1', amount_cents: 10_000, currency: 'USD', click_id: clickId, interval: 'year' }, headers: bearer(shop.apiKey) })).status).toBe(200);
    try {
      const broken = join(folder, 'broken.json');
      await writeFile(broken, JSON.stringify({ rules: [{ id: 'annual', ...annual, steps: [percent('130')] }] }));
      expect(JSON.parse((await affix(['draft', '--program', p, broken])).out)).toMatchObject({ version: 0, status: 'draft', problems: ["Rule 'Annual plans': a percentage is at most 100."] });
      const refused = await affix(['publish', '--program', p]);
      expect(refused.code).not.toBe(0);
      expect(refused.out).toContain('a percentage is at most 100');

      const file = join(folder, 'rules.json');
      await writeFile(file, JSON.stringify({ rule_set: { rules: [{ id: 'annual', ...annual }], defaults: {} } }));
      expect((await affix(['draft', '--program', p, file])).code).toBe(0);
      const shown = JSON.parse((await affix(['show', '--program', p])).out);
      expect(shown).toMatchObject([{ version: 0, status: 'draft', problems: [], rule_set: { rules: [{ id: 'annual', name: 'Annual plans' }] } }]);
      const backtest = JSON.parse((await affix(['backtest', '--program', p])).out);
      expect(backtest).toMatchObject({ sales: 1, totals: [{ currency: 'USD', actual_cents: 2_000, draft_cents: 3_000, difference_cents: 1_000 }], changes: { count: 1 } });
      expect(JSON.parse((await affix(['publish', '--program', p])).out)).toMatchObject({ version: 1, status: 'published' });
      expect(JSON.parse((await affix(['show', '--program', p])).out).map((s: { version: number }) => s.version)).toEqual([1, 0]);
      const help = await affix(['--help']);
      for (const command of ['show', 'draft', 'backtest', 'publish']) expect(help.out).toContain(command);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
