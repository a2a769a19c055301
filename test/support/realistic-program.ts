// A program with realistic numbers for the overview and table tests, recorded through the real
// tracking API only: three partners, sales in USD and EUR, a renewal, a customer who buys without
// signing up, a sale reported days after it happened, a partial refund, a chargeback, a sale
// before the period, and long ids (Stripe-like invoice and customer keys).
import type { TestApi } from './harness.js';
import { bearer } from './harness.js';

export interface RealisticProgram {
  accountEmail: string;
  password: string;
  programId: number;
  partners: { id: number; name: string; code: string }[];
  apiKey: string;
  /** The sale reported late: when it happened, and its (long) transaction id. */
  lateSale: { occurredAt: Date; transactionId: string };
  /** The sale reported today that happened 20 days ago (before the default 14 days). */
  oldSale: { occurredAt: Date; transactionId: string };
}

type Admin = (method: string, path: string, body?: unknown) => Promise<any>;

export async function seedRealisticProgram(api: TestApi, admin: Admin, now: Date, name = 'Northwind'): Promise<RealisticProgram> {
  const slug = name.toLowerCase();
  const accountEmail = `owner@${slug}.example`;
  const password = `${slug} owner password`;
  const account = await admin('POST', '/accounts', { email: accountEmail, password });
  const program = await admin('POST', '/programs', { account_id: account.id, name: `${name} Shop`, domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
  const partners: RealisticProgram['partners'] = [];
  for (const partnerName of ['Ana Lima', 'Ben Okafor', 'Cleo Martins']) {
    const partner = await admin('POST', `/programs/${program.id}/partners`, { name: partnerName, email: `${partnerName.split(' ')[0]!.toLowerCase()}@${slug}-partners.example` });
    const code = `${partnerName.split(' ')[0]!.toLowerCase()}-${slug}`;
    await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: code });
    partners.push({ id: partner.id, name: partnerName, code });
  }
  const apiKey = (await admin('POST', `/programs/${program.id}/keys`)).api_key as string;
  const track = async (path: string, body: unknown) => {
    const reply = await api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(apiKey) });
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const click = async (code: string) => (await track('click', { affiliate_url: `https://shop.example.com/pricing?aff=${code}` })).click_id as string;
  const at = (daysAgo: number, hour = 10) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysAgo, hour, 15));
  const [ana, ben, cleo] = partners.map((p) => p.code) as [string, string, string];
  const long = (n: string) => `in_1QfZ${n}xK9LmNoPqRsTuVwXyZ2aBcDeFgHiJ`;

  try {
    // Two weeks ago (the period before "last 7 days"): Ana's clicks, a lead who buys $120.00.
    api.clock.now = at(10);
    const early = await click(ana);
    await click(ana);
    await click(ben);
    await track('lead', { click_id: early, customer_key: 'cus_early_Q4aXk2' });
    await track('sale', { transaction_id: long('early'), amount_cents: 12_000, customer_key: 'cus_early_Q4aXk2' });

    // Five days ago: clicks for everyone; Ana's two leads; one buys $250.00 and renews; Ben's EUR sale
    // from a click, no signup; Cleo's lead, no sale.
    api.clock.now = at(5);
    const a1 = await click(ana);
    const a2 = await click(ana);
    await click(ana);
    const b1 = await click(ben);
    await click(ben);
    const c1 = await click(cleo);
    await track('lead', { click_id: a1, customer_key: 'cus_ana_first_9fQ2' });
    await track('lead', { click_id: a2, customer_key: 'cus_ana_second_7hT1' });
    await track('lead', { click_id: c1, customer_key: 'cus_cleo_lead_3kP8' });
    await track('sale', { transaction_id: long('ana1'), amount_cents: 25_000, customer_key: 'cus_ana_first_9fQ2' });
    await track('sale', { transaction_id: long('eur1'), amount_cents: 8_900, currency: 'EUR', click_id: b1, customer_key: 'cus_ben_eur_5mW3' });

    // Two days ago: Ana's renewal ($250.00), her first sale partly refunded ($14.50); a €49.00 sale of Cleo's lead, charged back.
    api.clock.now = at(2);
    await track('sale', { transaction_id: long('ana2'), amount_cents: 25_000, customer_key: 'cus_ana_first_9fQ2' });
    await track('refund', { transaction_id: long('ana1'), refund_amount_cents: 1_450, refund_id: 're_ana1_partial' });
    await track('sale', { transaction_id: long('cleo1'), amount_cents: 4_900, currency: 'EUR', customer_key: 'cus_cleo_lead_3kP8' });
    await track('refund', { transaction_id: long('cleo1'), reason: 'chargeback', refund_id: 'dp_cleo1' });

    // Today: more clicks, and a sale reported now that happened three days ago ($75.00, Ana's second lead).
    api.clock.now = at(0, 9);
    await click(ana);
    await click(cleo);
    const lateAt = at(3, 16);
    await track('sale', { transaction_id: long('late'), amount_cents: 7_500, customer_key: 'cus_ana_second_7hT1', occurred_at: lateAt.toISOString() });
    // A sale reported today that happened 20 days ago: before any preset's week, counted on its own day.
    const old = await click(ben);
    await track('sale', { transaction_id: long('old'), amount_cents: 3_000, click_id: old, customer_key: 'cus_ben_old_8rV6', occurred_at: at(20).toISOString() });
    return {
      accountEmail, password, programId: program.id, partners, apiKey,
      lateSale: { occurredAt: lateAt, transactionId: long('late') },
      oldSale: { occurredAt: at(20), transactionId: long('old') },
    };
  } finally {
    api.clock.now = now;
  }
}
