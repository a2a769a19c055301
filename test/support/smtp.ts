// A real SMTP receiver on loopback (smtp-server) that keeps every mail, parsed (mailparser).
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

export async function startSmtpReceiver() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
          mails.push({ to: to?.value[0]?.address ?? '', subject: mail.subject ?? '', text: mail.text ?? '' });
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
    /** The sign-in link of the last mail to `email`. */
    lastLink(email: string): string | null {
      const mail = [...mails].reverse().find((m) => m.to.toLowerCase() === email.toLowerCase());
      return mail ? (/https?:\/\/\S+\/portal\/auth\?token=[\w-]+/.exec(mail.text)?.[0] ?? null) : null;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
