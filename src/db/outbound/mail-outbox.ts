// The mail outbox, which is also the mail queue: rows written in the transaction of the change
// they tell of (a rolled-back change leaves none), one row per change by its key. Senders take
// the next row due (urgent kinds first, then accounts in turn: docs/mail.md), send it once, then
// clear its body.
import { MAIL_KINDS, MANAGER_ROLES, type MailKind, type OutgoingMail, isOptIn, isUrgent } from '../../core/mail.js';
import type { Pool, PoolClient } from '../infra/pool.js';

const OPT_IN_KINDS = (Object.keys(MAIL_KINDS) as MailKind[]).filter(isOptIn);

type Queryable = Pool | PoolClient;

/** Notified when mail is written: the senders look for it at once. */
export const MAIL_CHANNEL = 'affix_mail';

/** The mails as parameters $1..$9. */
const columns = (mails: OutgoingMail[]) => [
  mails.map((m) => m.programId),
  mails.map((m) => m.kind),
  mails.map((m) => m.to),
  mails.map((m) => m.senderName),
  mails.map((m) => m.subject),
  mails.map((m) => m.body),
  mails.map((m) => m.canUnsubscribe),
  mails.map((m) => m.dedupeKey),
  mails.map((m) => isUrgent(m.kind)),
];

const MAILS = `unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::boolean[]) WITH ORDINALITY
         AS m(program_id, kind, to_email, sender_name, subject, body, can_unsubscribe, dedupe_key, urgent, n)`;

/**
 * CTEs writing the mails of `from` (rows m, as MAILS) to the outbox, `made` (their ids), and
 * waking the senders. Each mail's lane is its program's account; its rank is its lane's last
 * waiting rank, or the senders' clock when that is ahead (a lane that had nothing waiting joins
 * the round where it is now), plus its place among the lane's new mails. Two transactions
 * writing to one lane at once may share ranks: a tie, sent in the order written.
 */
const outboxInsert = (from: string) => `input AS (
       SELECT m.*, coalesce(p.account_id, 0) AS lane FROM ${from} LEFT JOIN programs p ON p.id = m.program_id
     ), lanes AS MATERIALIZED (
       -- Once per lane (inlined, it ran once per mail, each time past the index entries this statement adds).
       SELECT l.lane, l.urgent, greatest(
                (SELECT c.rank FROM mail_clock c WHERE c.urgent = l.urgent),
                (SELECT max(o.rank) FROM mail_outbox o WHERE o.lane = l.lane AND o.urgent = l.urgent AND o.sent_at IS NULL AND o.skipped IS NULL)) AS last
         FROM (SELECT DISTINCT lane, urgent FROM input) l
     ), made AS (
       INSERT INTO mail_outbox (program_id, kind, to_email, sender_name, subject, body, can_unsubscribe, dedupe_key, lane, urgent, rank)
       SELECT i.program_id, i.kind, i.to_email, i.sender_name, i.subject, i.body, i.can_unsubscribe, i.dedupe_key, i.lane, i.urgent,
              l.last + row_number() OVER (PARTITION BY i.lane, i.urgent ORDER BY i.n)
         FROM input i JOIN lanes l ON l.lane = i.lane AND l.urgent = i.urgent
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
     ), woken AS (
       SELECT pg_notify('${MAIL_CHANNEL}', '') FROM (SELECT 1 FROM made LIMIT 1) one
     )`;

/** Writes the mails in one statement, in the caller's transaction; returns how many were new. */
export async function queueMails(client: Queryable, mails: OutgoingMail[]): Promise<number> {
  if (mails.length === 0) return 0;
  const { rows } = await client.query(`WITH ${outboxInsert(MAILS)} SELECT (SELECT count(*) FROM made)::int AS n, (SELECT count(*) FROM woken) AS woken`, columns(mails));
  return rows[0].n;
}

/**
 * A partner asks for a sign-in link: in one statement whatever the address, the link and its
 * mail are written only when the address is an invited partner's and `mayMail` (its cap not
 * spent). The answer's time does not depend on it (no mail is sent before the answer).
 */
export async function requestPartnerLink(pool: Pool, link: { tokenHash: Buffer; email: string; expiresAt: Date; mayMail: boolean }, mail: OutgoingMail): Promise<void> {
  await pool.query(
    `WITH invited AS (
       SELECT 1 FROM partners WHERE lower(email) = lower($10) AND invited_at IS NOT NULL AND status IN ('approved', 'invited', 'archived') AND $13::boolean LIMIT 1
     ), link AS (
       INSERT INTO partner_sign_in_links (token_hash, email, expires_at) SELECT $11, lower($10), $12 FROM invited RETURNING 1
     ), ${outboxInsert(`${MAILS} CROSS JOIN link`)}
     SELECT (SELECT count(*) FROM made) AS n, (SELECT count(*) FROM woken) AS woken`,
    [...columns([mail]), link.email, link.tokenHash, link.expiresAt, link.mayMail],
  );
}

/**
 * Someone asks for a password reset link: like the partner's sign-in link, one statement whatever
 * the address, so the answer's time does not say whether it signs in anywhere. The link, its mail
 * and an audit entry per sign-in of the address (its account, each joined membership) are written
 * only when there is one.
 */
export async function requestPasswordResetLink(
  pool: Pool,
  link: { tokenHash: Buffer; email: string; expiresAt: Date },
  asker: { type: string; id: string | null; label: string | null; ip: string | null },
  mail: OutgoingMail,
): Promise<void> {
  await pool.query(
    `WITH people AS (
       SELECT id AS account_id, 'account:' || id AS person FROM accounts WHERE email = lower($10)
       UNION ALL
       SELECT account_id, id::text FROM account_members WHERE lower(email) = lower($10) AND removed_at IS NULL AND accepted_at IS NOT NULL
     ), link AS (
       INSERT INTO password_resets (token_hash, email, expires_at) SELECT $11, lower($10), $12 WHERE EXISTS (SELECT 1 FROM people) RETURNING 1
     ), audited AS (
       INSERT INTO audit_log (account_id, program_id, actor_type, actor_id, actor_label, action, object_type, object_id, changes, ip)
       SELECT p.account_id, NULL, $13, $14, $15, 'password.reset_requested', 'member', p.person, '{}'::jsonb, $16::inet FROM people p, link
     ), ${outboxInsert(`${MAILS} CROSS JOIN link`)}
     SELECT (SELECT count(*) FROM made) AS n, (SELECT count(*) FROM woken) AS woken`,
    [...columns([mail]), link.email.trim(), link.tokenHash, link.expiresAt, asker.type, asker.id, asker.label, asker.ip],
  );
}

export interface StoredMail {
  id: number;
  programId: number | null;
  kind: string;
  to: string;
  senderName: string | null;
  subject: string;
  body: string;
  canUnsubscribe: boolean;
  unsubscribed: boolean;
  /** Attempts before this one. */
  attempts: number;
}

const STORED = `o.id, o.program_id, o.kind, o.to_email, o.sender_name, o.subject, o.body, o.can_unsubscribe, o.attempts,
            o.can_unsubscribe AND CASE WHEN o.kind = ANY ($1::text[])
              THEN NOT EXISTS (SELECT 1 FROM mail_preferences p WHERE p.email = lower(o.to_email) AND p.kind = o.kind AND p.wants)
              ELSE EXISTS (SELECT 1 FROM mail_preferences p WHERE p.email = lower(o.to_email) AND p.kind = o.kind AND NOT p.wants) END AS unsubscribed`;

const stored = (r: any): StoredMail => ({
  id: Number(r.id),
  programId: r.program_id === null ? null : Number(r.program_id),
  kind: r.kind,
  to: r.to_email,
  senderName: r.sender_name,
  subject: r.subject,
  body: r.body,
  canUnsubscribe: r.can_unsubscribe,
  unsubscribed: r.unsubscribed,
  attempts: r.attempts,
});

/**
 * The next mail to send, locked (other senders skip it): urgent first, then the lowest rank
 * (accounts in turn), then the first written; a mail that failed waits for its retry time.
 * Read in the order of mail_outbox_next_idx: the backlog is never sorted.
 */
export const NEXT_MAIL_SQL = `SELECT ${STORED}
       FROM mail_outbox o
      WHERE o.sent_at IS NULL AND o.skipped IS NULL AND (o.retry_at IS NULL OR o.retry_at <= $2)
      ORDER BY o.urgent DESC, o.rank, o.id LIMIT 1 FOR UPDATE OF o SKIP LOCKED`;

export async function lockNextDue(client: PoolClient, now: Date): Promise<StoredMail | null> {
  const { rows } = await client.query(NEXT_MAIL_SQL, [OPT_IN_KINDS, now]);
  return rows[0] ? stored(rows[0]) : null;
}

/** This mail, locked (another sender skips it), unless it was sent or skipped already. */
export async function lockUnsent(client: PoolClient, mailId: number): Promise<StoredMail | null> {
  const { rows } = await client.query(`SELECT ${STORED} FROM mail_outbox o WHERE o.id = $2 AND o.sent_at IS NULL AND o.skipped IS NULL FOR UPDATE OF o SKIP LOCKED`, [OPT_IN_KINDS, mailId]);
  return rows[0] ? stored(rows[0]) : null;
}

/** `update` (SQL changing one outbox row, RETURNING urgent, rank), then the senders' clock moves on to that rank. */
const andTick = (update: string) => `WITH done AS (${update} RETURNING urgent, rank)
  UPDATE mail_clock c SET rank = greatest(c.rank, done.rank) FROM done WHERE c.urgent = done.urgent`;

export async function markSent(client: PoolClient, mailId: number, at: Date): Promise<void> {
  await client.query(andTick('UPDATE mail_outbox SET sent_at = $2, body = NULL, attempts = attempts + 1, last_error = NULL, retry_at = NULL WHERE id = $1'), [mailId, at]);
}

export async function markSkipped(client: PoolClient, mailId: number, reason: string): Promise<void> {
  await client.query(andTick('UPDATE mail_outbox SET skipped = $2, body = NULL WHERE id = $1'), [mailId, reason]);
}

/** An attempt failed: tried again at `retryAt`, or (null) given up, its row saying `failed`. */
export async function noteFailure(client: PoolClient, mailId: number, error: string, retryAt: Date | null): Promise<void> {
  await client.query(
    andTick(`UPDATE mail_outbox SET attempts = attempts + 1, last_error = $2, retry_at = $3,
                    skipped = CASE WHEN $3::timestamptz IS NULL THEN 'failed' END, body = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE body END
              WHERE id = $1`),
    [mailId, error.slice(0, 500), retryAt],
  );
}

/** What the address wants of this kind: false stops it (an unsubscribe), true asks for an opt-in kind. */
export async function setPreference(pool: Pool, email: string, kind: string, wants: boolean): Promise<void> {
  await pool.query(
    'INSERT INTO mail_preferences (email, kind, wants) VALUES (lower($1), $2, $3) ON CONFLICT (email, kind) DO UPDATE SET wants = EXCLUDED.wants, unsubscribed_at = now()',
    [email, kind, wants],
  );
}

export const unsubscribe = (pool: Pool, email: string, kind: string) => setPreference(pool, email, kind, false);

/** Yesterday's commissions (or any day's) per partner and program, for the digest: partners with an email only. */
export async function commissionsOfDay(db: Queryable, from: Date, to: Date) {
  const { rows } = await db.query(
    `SELECT c.partner_id, c.program_id, p.name AS program_name, pa.email, pa.name, c.currency, count(*)::int AS n, sum(c.amount_cents)::bigint AS cents,
            (count(*) FILTER (WHERE c.stage = 'held'))::int AS held, max(coalesce(c.hold_days, p.hold_days))::int AS hold_days
       FROM commissions c JOIN partners pa ON pa.id = c.partner_id JOIN programs p ON p.id = c.program_id
      WHERE c.created_at >= $1 AND c.created_at < $2 AND NOT c.test AND c.moved_to_sale_id IS NULL AND c.stage <> 'rejected'
        AND pa.email IS NOT NULL AND pa.invited_at IS NOT NULL AND pa.status IN ('approved', 'invited')
      GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 6`,
    [from, to],
  );
  return rows.map((r) => ({ partnerId: Number(r.partner_id), programId: Number(r.program_id), programName: r.program_name as string, email: r.email as string, name: r.name as string, currency: r.currency as string, count: r.n as number, cents: Number(r.cents), held: r.held as number, holdDays: r.hold_days as number }));
}

/**
 * A mail to the program's managers, in the caller's transaction: the account's own address and
 * the team members whose role handles this kind (src/core/mail.ts), one mail each.
 */
export async function queueManagerMail(client: Queryable, programId: number, mail: Omit<OutgoingMail, 'to'>): Promise<void> {
  const roles = MANAGER_ROLES[mail.kind] ?? ['owner'];
  const { rows } = await client.query(
    `SELECT a.email FROM programs p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1
     UNION
     SELECT m.email FROM programs p JOIN account_members m ON m.account_id = p.account_id
      WHERE p.id = $1 AND m.accepted_at IS NOT NULL AND m.removed_at IS NULL AND m.role = ANY ($2::text[])`,
    [programId, roles],
  );
  await queueMails(client, rows.map((r) => ({ ...mail, to: r.email as string, dedupeKey: `${mail.dedupeKey}:${String(r.email).toLowerCase()}` })));
}

/** This address's preferences: kind -> wants. */
export async function preferencesOf(db: Queryable, email: string): Promise<Map<string, boolean>> {
  const { rows } = await db.query('SELECT kind, wants FROM mail_preferences WHERE email = lower($1)', [email]);
  return new Map(rows.map((r) => [r.kind as string, r.wants as boolean]));
}

/** Yesterday's numbers per program with any activity (the managers' daily summary). */
export async function programDays(db: Queryable, from: Date, to: Date) {
  const { rows } = await db.query(
    `SELECT p.id, p.name,
            (SELECT count(*) FROM clicks k WHERE k.program_id = p.id AND k.created_at >= $1 AND k.created_at < $2)::int AS clicks,
            (SELECT count(*) FROM customers c WHERE c.program_id = p.id AND c.lead_at >= $1 AND c.lead_at < $2)::int AS leads,
            (SELECT count(*) FROM sales s WHERE s.program_id = p.id AND NOT s.test AND s.occurred_at >= $1 AND s.occurred_at < $2)::int AS sales,
            (SELECT count(*) FROM partner_applications a WHERE a.program_id = p.id AND a.status = 'pending')::int AS pending_applications
       FROM programs p
      WHERE EXISTS (SELECT 1 FROM clicks k WHERE k.program_id = p.id AND k.created_at >= $1 AND k.created_at < $2)
         OR EXISTS (SELECT 1 FROM sales s WHERE s.program_id = p.id AND s.occurred_at >= $1 AND s.occurred_at < $2)`,
    [from, to],
  );
  return rows.map((r) => ({ programId: Number(r.id), name: r.name as string, clicks: r.clicks as number, leads: r.leads as number, sales: r.sales as number, pendingApplications: r.pending_applications as number }));
}
