// A brand with `partners` partners and a row per partner in every table the brands share that a
// list, an export or the portal reads: written set-wise (INSERT … SELECT), so 100,000 partners
// take seconds. Each partner has a profile, a link, a customer with a click and its sale event, a
// paid sale with its commission and ledger entries and the payout that paid it, its rollups, an
// application, a promo code, a lifted sanction, an audit entry, a team member, an API key and a
// webhook delivery with its attempt. Triggers are off while it writes (the seed writes what they
// would: the partners' names and emails, the rollups), so it needs a superuser's connection. After
// the partners and their links, two chains of statements that need nothing of each other run side
// by side on two connections.
import type { Pool } from '../../src/db/infra/pool.js';

export interface SeededBrand {
  accountId: number;
  programId: number;
  /** The first partner: invited, with an email (the portal signs in as it). */
  partnerId: number;
  partnerEmail: string;
  linkId: number;
  payoutId: number;
  batchId: number;
  endpointId: number;
  transactionId: string;
}

/** Runs statements on a connection of its own with triggers and foreign-key checks off (the seed writes consistent rows). */
async function onConnection<T>(pool: Pool, fn: (run: (sql: string, params?: unknown[]) => Promise<{ rows: any[] }>) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SET session_replication_role = replica; SET synchronous_commit = off');
    return await fn((sql, params = []) => client.query(sql, params));
  } finally {
    await client.query('RESET session_replication_role; RESET synchronous_commit').catch(() => undefined);
    client.release();
  }
}

/** `pool` needs two connections, a superuser's, with a statement timeout that fits 100,000-row statements. */
export async function seedBrand(pool: Pool, tag: string, partners: number): Promise<SeededBrand> {
  if (!/^[a-z0-9]+$/.test(tag) || !Number.isSafeInteger(partners)) throw new Error('a tag of letters and digits, a whole number of partners');
  const { programId, accountId } = await onConnection(pool, async (run) => {
    const { rows } = await run(
      `WITH a AS (INSERT INTO accounts (email, name) VALUES ($1, $2) RETURNING id)
       INSERT INTO programs (account_id, name, domain, commission_type, commission_rate, hold_days)
       SELECT id, $2, 'shop.example.com', 'percent', 20, 0 FROM a RETURNING id, account_id`,
      [`owner-${tag}@brand.test`, `Brand ${tag}`],
    );
    return { programId: Number(rows[0].id), accountId: Number(rows[0].account_id) };
  });
  // $1 program, $2 account, $3 how many, $4 the brand's tag (every unique text carries it), $5 what a statement adds.
  const fill = (text: string, ...more: number[]) =>
    text.replace(/\$(\d)/g, (_, n: string) => String([programId, accountId, partners, `'${tag}'`, ...more][Number(n) - 1]));
  const each = (statements: string[]) => (run: (sql: string) => Promise<unknown>) => statements.reduce((done, sql) => done.then(() => run(fill(sql))), Promise.resolve() as Promise<unknown>);

  await onConnection(pool, each([
    `INSERT INTO partner_profiles (account_id, name, email, payout_method, payout_reference, payout_currency)
     SELECT $2, 'Partner ' || i, $4 || '-' || i || '@partners.test', 'paypal', $4 || '-' || i || '@pay.test', 'USD' FROM generate_series(1, $3::int) i`,
    `INSERT INTO partners (program_id, name, email, payout_method, payout_reference, payout_currency, profile_id, status, invited_at, tags)
     SELECT $1, pp.name, pp.email, pp.payout_method, pp.payout_reference, pp.payout_currency, pp.id, 'approved', now(), '{seeded}'
       FROM partner_profiles pp WHERE pp.account_id = $2 ORDER BY pp.id`,
    `INSERT INTO referral_links (short_link, program_id, partner_id) SELECT $4 || '-' || pa.id, $1, pa.id FROM partners pa WHERE pa.program_id = $1`,
    'INSERT INTO payout_batches (program_id) VALUES ($1)',
  ]));
  const batchId = Number((await pool.query('SELECT max(id) AS id FROM payout_batches WHERE program_id = $1', [programId])).rows[0].id);

  const money = each([
    `INSERT INTO customers (program_id, customer_key, status, click_id, clicked_at, link_id, partner_id, lead_at, converted_at)
     SELECT $1, $4 || '-customer-' || l.id, 'customer', $4 || '-click-' || l.id, now() - interval '2 days', l.id, l.partner_id, now() - interval '2 days', now() - interval '1 day'
       FROM referral_links l WHERE l.program_id = $1`,
    `INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, created_at, sub_id)
     SELECT cu.click_id, $1, cu.link_id, cu.partner_id, cu.click_id, 'https://shop.example.com/?aff=x&sub_id=seeded', cu.clicked_at, 'seeded' FROM customers cu WHERE cu.program_id = $1`,
    `INSERT INTO sales (program_id, account_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step)
     SELECT $1, $2, cu.id, cu.partner_id, $4 || '-sale-' || cu.id, 10000, 'USD', now() - interval '1 day', 'click_id' FROM customers cu WHERE cu.program_id = $1`,
    `INSERT INTO tracking_events (program_id, kind, customer_id, click_id, sale_id, created_at, sale_occurred_at)
     SELECT $1, 'sale', cu.id, cu.click_id, s.id, now() - interval '1 day', s.occurred_at FROM customers cu JOIN sales s ON s.customer_id = cu.id WHERE cu.program_id = $1`,
    `INSERT INTO payouts (batch_id, program_id, partner_id, currency, amount_cents, status, reference, paid_at)
     SELECT ${batchId}, $1, pa.id, 'USD', 2000, 'paid', 'ref-' || pa.id, now() FROM partners pa WHERE pa.program_id = $1`,
    // Each paid payout's statement number, from the brand's series (migration 0072).
    `INSERT INTO statement_numbers (account_id, number, payout_id, prefix, issued_at)
     SELECT $2, row_number() OVER (ORDER BY po.id), po.id, '', now() FROM payouts po WHERE po.program_id = $1`,
    `INSERT INTO statement_series (account_id, last_number) SELECT $2, count(*) FROM payouts WHERE program_id = $1`,
    `INSERT INTO commissions (sale_id, program_id, partner_id, amount_cents, currency, stage, approved_at, paid_at, payout_id, payout_cents)
     SELECT s.id, $1, s.partner_id, 2000, 'USD', 'paid', now(), now(), po.id, 2000 FROM sales s JOIN payouts po ON po.partner_id = s.partner_id AND po.program_id = $1
      WHERE s.program_id = $1`,
    `INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, approved_cents, paid_cents, payout_id)
     SELECT $1, c.partner_id, c.id, 'USD', 'paid', 0, 0, 2000, c.payout_id FROM commissions c WHERE c.program_id = $1`,
    // A clawback netted by each payout: a payout's statement lists the ones it netted.
    `INSERT INTO clawbacks (commission_id, program_id, partner_id, currency, amount_cents, payout_id)
     SELECT c.id, $1, c.partner_id, 'USD', -100, c.payout_id FROM commissions c WHERE c.program_id = $1`,
  ]);
  const rest = each([
    // The rollups (migration 0028) of the money chain's rows: each partner's all-time numbers per link, and the program's days.
    `INSERT INTO page_rollups (program_id, partner_id, day, link_id, measure, currency, shard, value)
     SELECT $1, l.partner_id, 'infinity'::date, l.id, m.measure, m.currency, -1, m.value
       FROM referral_links l CROSS JOIN (VALUES ('clicks', '', 1), ('revenue', 'USD', 10000), ('earned:paid', 'USD', 2000)) m (measure, currency, value)
      WHERE l.program_id = $1
     UNION ALL
     SELECT $1, l.partner_id, 'infinity'::date, 0, 'ledger_paid', 'USD', -1, 2000 FROM referral_links l WHERE l.program_id = $1
     UNION ALL
     SELECT $1, -1, utc_day(now() - d.ago), -1, m.measure, m.currency, -1, $3 FROM (VALUES (interval '1 day'), (interval '2 days')) d (ago)
      CROSS JOIN (VALUES ('clicks', ''), ('leads', ''), ('sales', ''), ('revenue', 'USD'), ('earned:paid', 'USD')) m (measure, currency)`,
    `INSERT INTO partner_applications (program_id, partner_id, answers, terms_version, terms_accepted_at, status, decided_at)
     SELECT $1, pa.id, '{"website": "https://creator.example"}', '1', now(), 'approved', now() FROM partners pa WHERE pa.program_id = $1`,
    `INSERT INTO promo_codes (program_id, partner_id, code) SELECT $1, pa.id, $4 || '-promo-' || pa.id FROM partners pa WHERE pa.program_id = $1`,
    `INSERT INTO partner_sanctions (program_id, partner_id, kind, reason, status_before, lifted_at, lift_reason)
     SELECT $1, pa.id, 'archive', 'seeded', 'approved', now(), 'seeded' FROM partners pa WHERE pa.program_id = $1`,
    `INSERT INTO audit_log (account_id, program_id, actor_type, actor_id, action, object_type, object_id)
     SELECT $2, $1, 'operator', 'seed', 'partner.created', 'partner', pa.id::text FROM partners pa WHERE pa.program_id = $1`,
    `INSERT INTO account_members (account_id, email, role, accepted_at) SELECT $2, $4 || '-member-' || i || '@brand.test', 'viewer', now() FROM generate_series(1, $3::int) i`,
    `INSERT INTO api_keys (program_id, key_hash, display_prefix, last_four) SELECT $1, decode(md5($4 || '-key-' || i), 'hex'), 'aff_live_', '0000' FROM generate_series(1, $3::int) i`,
    // As many endpoints as partners, each with a message delivered and its attempt.
    `INSERT INTO webhook_endpoints (program_id, url, event_types, secret_sealed) SELECT $1, 'https://hooks.example.test/' || i, '{partner.approved}', 'sealed' FROM generate_series(1, $3::int) i`,
    `INSERT INTO webhook_messages (id, program_id, type, test, data) SELECT $4 || '-msg-' || i, $1, 'partner.approved', false, '{}' FROM generate_series(1, $3::int) i`,
    `INSERT INTO webhook_deliveries (message_id, endpoint_id, status, attempts, delivered_at)
     SELECT $4 || '-msg-' || e.n, e.id, 'delivered', 1, now() FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM webhook_endpoints WHERE program_id = $1) e`,
    `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms)
     SELECT d.id, now(), 200, 5 FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.program_id = $1`,
    `INSERT INTO webhook_events (event_key, endpoint, program_id, type, livemode, status, reason, payload)
     SELECT $4 || '-evt-' || i, 'program', $1, 'checkout.session.completed', true, CASE WHEN i % 2 = 0 THEN 'processed' ELSE 'failed' END, 'seeded', '{}'
       FROM generate_series(1, $3::int) i`,
  ]);
  await Promise.all([onConnection(pool, money), onConnection(pool, rest)]);

  const { rows: first } = await pool.query(
    `SELECT pa.id, pa.email, l.id AS link_id, po.id AS payout_id, s.processor_event_id, (SELECT min(id) FROM webhook_endpoints WHERE program_id = $1) AS endpoint_id
       FROM partners pa JOIN referral_links l ON l.partner_id = pa.id JOIN payouts po ON po.partner_id = pa.id JOIN sales s ON s.partner_id = pa.id
      WHERE pa.program_id = $1 ORDER BY pa.id LIMIT 1`,
    [programId],
  );
  return {
    accountId,
    programId,
    partnerId: Number(first[0].id),
    partnerEmail: first[0].email,
    linkId: Number(first[0].link_id),
    payoutId: Number(first[0].payout_id),
    batchId,
    endpointId: Number(first[0].endpoint_id),
    transactionId: first[0].processor_event_id,
  };
}
