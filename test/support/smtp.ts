// A real SMTP receiver on loopback (smtp-server) that keeps every mail, parsed (mailparser).
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  /** The HTML part ('' when the mail has none). */
  html: string;
  /** The sender's display name. */
  fromName: string;
  /** Lower-cased header names -> values (List-Unsubscribe, List-Unsubscribe-Post). */
  headers: Record<string, string>;
  /** The mail's other parts (an inline image: its content id, shown by the HTML as `cid:`). */
  attachments: { contentType: string; cid: string | null; inline: boolean; content: Buffer }[];
}

/** Waits until the mail worker has sent (or skipped) every mail written so far: mail is sent by jobs, after the answer. */
export async function outboxSent(pool: { query: (sql: string) => Promise<{ rows: any[] }> }, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM mail_outbox WHERE sent_at IS NULL AND skipped IS NULL');
    if (rows[0].n === 0) return;
    if (Date.now() - started > timeoutMs) throw new Error(`${rows[0].n} mails still unsent after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function startSmtpReceiver() {
  const mails: ReceivedMail[] = [];
  // While held, mails being sent wait at the end of DATA (the senders stay busy with them): a
  // test can write mail while the senders are stuck, then release, and see what goes next.
  let held: { promise: Promise<void>; release: () => void } | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // No reverse DNS of 127.0.0.1 per connection (a resolver that does not answer made each mail wait).
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      // keepCidLinks: the HTML as mailed (`cid:` kept), not with the images made data: URLs.
      simpleParser(stream, { keepCidLinks: true })
        .then(async (mail) => {
          if (held) await held.promise;
          const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
          const headers = Object.fromEntries([...mail.headerLines].map((h) => [h.key, h.line.slice(h.line.indexOf(':') + 1).trim()]));
          mails.push({ to: to?.value[0]?.address ?? '', subject: mail.subject ?? '', text: mail.text ?? '', html: typeof mail.html === 'string' ? mail.html : '', fromName: mail.from?.value[0]?.name ?? '', headers,
            attachments: mail.attachments.map((a) => ({ contentType: a.contentType, cid: a.cid ?? null, inline: a.contentDisposition === 'inline' || a.related === true, content: a.content })) });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The newest sign-in link mailed to `email` (an invitation goes before the notices written with it). */
    lastLink(email: string): string | null {
      const link = (m: ReceivedMail) => /https?:\/\/\S+\/portal\/auth\?token=[\w-]+/.exec(m.text)?.[0] ?? null;
      const mail = [...mails].reverse().find((m) => m.to.toLowerCase() === email.toLowerCase() && link(m));
      return mail ? link(mail) : null;
    },
    /** Holds every mail being received until `release()`. */
    hold(): void {
      let release = () => undefined as void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      held = { promise, release };
    },
    release(): void {
      held?.release();
      held = null;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
