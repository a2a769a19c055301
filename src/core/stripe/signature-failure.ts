// Why Stripe's delivery was refused, in words that say what to do: Stripe's own messages run to
// several sentences with a URL, and a program page shows the last one beside the secret's field.

const KNOWN: [RegExp, string][] = [
  [/No signatures found matching the expected signature/, 'No signature matched the signing secret saved here. Copy the signing secret (whsec_…) of this endpoint in Stripe and save it below.'],
  [/Timestamp outside the tolerance zone/, 'The delivery was signed more than 5 minutes before it arrived: a delayed or replayed delivery, or a server clock far off.'],
  [/Unable to extract timestamp and signatures|No signatures found with expected scheme/, 'The Stripe-Signature header is not one Stripe sends: is a proxy between Stripe and Affix changing it?'],
  [/Missing Stripe-Signature header/, 'The delivery had no Stripe-Signature header: only Stripe should call this endpoint.'],
  [/Stripe is not connected for this program/, 'No signing secret is saved for this program: save it below.'],
];

const LONGEST = 200;

export function signatureFailureInWords(message: string): string {
  const known = KNOWN.find(([pattern]) => pattern.test(message));
  if (known) return known[1];
  const first = message.replace(/^Webhook signature verification failed: /, '').split(/(?<=\.)\s/)[0]!.trim();
  if (first.length <= LONGEST) return first;
  // Cut at a word, never inside one.
  return `${first.slice(0, first.lastIndexOf(' ', LONGEST - 1))}…`;
}
