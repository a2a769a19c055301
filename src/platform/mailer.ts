// Mail to people (partners' sign-in links) through nodemailer. Without AFFIX_SMTP_URL the
// message is written to the log instead (a local try-out needs no mail server): say so loudly.
import nodemailer from 'nodemailer';
import type { Logger } from './logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** The same mail as HTML (multipart/alternative beside the text). */
  html?: string;
  /** The sender's name shown (a program's); the address stays AFFIX_MAIL_FROM's. */
  fromName?: string | null;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post). */
  headers?: Record<string, string>;
  /** Images the HTML shows as `cid:<cid>` (parts of the mail beside the HTML: multipart/related). */
  images?: { cid: string; filename: string; contentType: string; content: Buffer }[];
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** "ana@example.com" -> "a***@example.com": enough to tell which mail, never the whole address. */
export const maskEmail = (email: string) => email.replace(/^(.)[^@]*(@.*)$/, '$1***$2');

export function createMailer(settings: { smtpUrl: string | undefined; from: string }, logger: Logger): Mailer {
  if (!settings.smtpUrl) {
    return {
      async send(mail) {
        // No SMTP server configured: the only way the link reaches anyone (documented in the README).
        logger.warn({ to: maskEmail(mail.to), subject: mail.subject, mail: mail.text }, 'no AFFIX_SMTP_URL: mail written to the log instead of sent');
      },
    };
  }
  const transport = nodemailer.createTransport(settings.smtpUrl);
  const address = /<([^>]+)>/.exec(settings.from)?.[1] ?? settings.from;
  return {
    async send(mail) {
      const from = mail.fromName ? { name: mail.fromName, address } : settings.from;
      const attachments = (mail.images ?? []).map((i) => ({ cid: i.cid, filename: i.filename, contentType: i.contentType, content: i.content, contentDisposition: 'inline' as const }));
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html ? { html: mail.html } : {}), ...(attachments.length ? { attachments } : {}), headers: mail.headers });
    },
  };
}
