// A partner's bounty mails (docs/rewards.md "Bounties"): an award (a performance bounty reached,
// or a submission approved) and a submission rejected with the brand's reason.
import { mail, type OutgoingMail } from '../../core/mail.js';
import { formatMoney } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { type MailBrand, type MailLinks, fromBrand, portal } from './mail.js';

export function bountyAwardedMail(
  links: MailLinks,
  p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; awardId: number; bountyName: string; words: string; rewardCents: number; currency: Currency; period: string | null; submitted: boolean },
): OutgoingMail {
  const amount = formatMoney(p.rewardCents, p.currency);
  const why = p.submitted
    ? `${p.programName} approved your submission to the bounty "${p.bountyName}".`
    : `You reached the bounty "${p.bountyName}" for ${p.period ? p.period.slice(0, 7) : 'this period'}.`;
  return mail(p.submitted ? 'bounty_approved' : 'bounty_awarded', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: you earned ${amount} — ${p.bountyName}`,
    ...fromBrand(
      p.brand,
      p.programName,
      `${why}\n\nYour commission: ${p.words}. It waits out the program's hold like every commission, then it is paid with your next payout.\n\nFollow it in your partner portal: ${portal(links)}/programs/${p.partnerId}/referrals#commissions\n`,
    ),
    dedupeKey: `bounty_awarded:${p.awardId}`,
  });
}

export function bountyRejectedMail(
  links: MailLinks,
  p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; submissionId: number; bountyName: string; reason: string },
): OutgoingMail {
  return mail('bounty_rejected', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: your submission to "${p.bountyName}" was not approved`,
    ...fromBrand(p.brand, p.programName, `${p.programName} did not approve your submission to the bounty "${p.bountyName}": ${p.reason}\n\nSee the program's bounties in your partner portal: ${portal(links)}/programs/${p.partnerId}/bounties\n`),
    dedupeKey: `bounty_rejected:${p.submissionId}`,
  });
}
