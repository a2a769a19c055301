// The approval mail's referral link (issue 44, item 4): written as one line of the mail's text,
// and found there again when the mail is sent, to add its QR code to the HTML part. One place
// for both, so the line the template writes is the line the sender reads.

const LABEL = 'Your referral link: ';

/** The line of the mail's text that carries the partner's link. */
export const referralLinkLine = (url: string) => `${LABEL}${url}`;

/** The link of that line in a mail's text, or null when the text has none. */
export function referralLinkIn(text: string): string | null {
  for (const line of text.split('\n')) if (line.startsWith(LABEL) && /^https?:\/\/\S+$/.test(line.slice(LABEL.length))) return line.slice(LABEL.length);
  return null;
}
