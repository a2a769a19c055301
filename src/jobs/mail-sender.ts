// The mail senders: each takes the next mail due from the outbox (urgent kinds first, then
// accounts in turn: docs/mail.md) and sends it, one after another. A mail written anywhere wakes
// idle senders (LISTEN, WAKE_DELAY_MS later); polling covers a lost listener and retries come due.
import { type SendReport, type SendingDeps, sendNextMail } from '../app/outbound/mail.js';
import { MAIL_CHANNEL } from '../db/outbound/mail-outbox.js';
import { listen } from '../db/infra/notifications.js';
import type { Pool } from '../db/infra/pool.js';
import type { Logger } from '../platform/logger.js';
import { maskEmail } from '../platform/mailer.js';

/** Mails handed to the SMTP server at once. */
export const MAIL_SENDERS = 2;
/**
 * An idle sender starts this long after a mail is written: after the answer of the request that
 * wrote it, so that the send (in this process when it also serves the API) never slows that
 * answer — a sign-in request for an invited address answers as fast as for any other.
 */
export const WAKE_DELAY_MS = 50;

export interface MailSender {
  /** Stops taking mail; resolves when the mails being sent are done. */
  stop(): Promise<void>;
}

/** A mail server's message may name the recipient: never a whole address in the log. */
const withoutAddresses = (message: string) => message.replace(/[^\s<>"'@:;,]+@[^\s<>"'@:;,]+/g, (address) => maskEmail(address));

function logReport(logger: Logger, report: SendReport): void {
  const { mailId, kind, outcome, attempts } = report;
  if (outcome === 'sent' || outcome === 'unsubscribed') return logger.info({ job: 'mail', mailId, kind, outcome, attempts }, 'mail');
  const err = { message: withoutAddresses(report.error ?? '') };
  if (outcome === 'failed') return logger.warn({ job: 'mail', mailId, kind, outcome, attempts, retryAt: report.retryAt, err }, 'mail failed; retried later');
  logger.error({ job: 'mail', mailId, kind, outcome, attempts, err }, 'mail failed; given up');
}

export function startMailSender(deps: SendingDeps & { logger: Logger; listenPool: Pool | null; pollMs: number }): MailSender {
  let running = true;
  // Bumped by every wake-up: a sender that found nothing sleeps only if none came while it looked.
  let wakeups = 0;
  const sleepers = new Set<() => void>();
  const wake = () => {
    wakeups += 1;
    for (const sleeper of sleepers) sleeper();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  const sender = async () => {
    while (running) {
      const seen = wakeups;
      let report: SendReport | null = null;
      try {
        report = await sendNextMail(deps);
      } catch (error) {
        // The database, not the mail server: the row was not touched; it is taken again later.
        deps.logger.warn({ job: 'mail', err: { message: withoutAddresses((error as Error).message) } }, 'mail sender: database error; trying again');
      }
      if (report) logReport(deps.logger, report);
      else if (running && seen === wakeups) await sleep(deps.pollMs);
    }
  };
  const senders = Array.from({ length: MAIL_SENDERS }, sender);
  let wakeTimer: NodeJS.Timeout | null = null;
  const wakeSoon = () => {
    wakeTimer ??= setTimeout(() => {
      wakeTimer = null;
      wake();
    }, WAKE_DELAY_MS);
  };
  const listening = deps.listenPool
    ? listen(deps.listenPool, MAIL_CHANNEL, wakeSoon, (error) => deps.logger.warn({ err: error }, 'listening for new mail failed; polling until it is back'))
    : null;
  return {
    async stop() {
      running = false;
      if (wakeTimer) clearTimeout(wakeTimer);
      wake();
      await listening?.stop();
      await Promise.all(senders);
    },
  };
}
