// The files `affix init` writes under .affix/, and the .gitignore lines it adds once.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ProjectContext {
  programId: number;
  name: string;
  domain: string;
  /** As the service describes it, e.g. "20% of the first paid sale (percent)". */
  commission: string;
  cookieWindowDays: number;
  allowedOrigins: string[];
  apiBaseUrl: string;
  /** How the brand is paid: its processor's webhooks capture sales, or its own server reports them. */
  processor: SaleSource;
}

export const SALE_SOURCES = ['stripe', 'paddle', 'lemonsqueezy', 'api'] as const;
export type SaleSource = (typeof SALE_SOURCES)[number];

const GITIGNORE_LINES = ['.affix/.env', '.affix/.env.*'];

export function agentsMarkdown(c: ProjectContext): string {
  const base = c.apiBaseUrl;
  return `# Affix integration: instructions for AI coding agents

## Project context

| | |
|---|---|
| Program id | ${c.programId} |
| Program | ${c.name} |
| Domain | ${c.domain} |
| Commission | ${c.commission} |
| Cookie duration (attribution window) | ${c.cookieWindowDays} days |
| Allowed origins (browser clicks) | ${c.allowedOrigins.length ? c.allowedOrigins.join(', ') : 'none yet: add your site in the dashboard'} |
| API base URL | ${base} |
| API key | environment variable \`AFFIX_API_KEY\` (in \`.affix/.env\`; never commit it, never send it to a browser) |

All money amounts are integers in the smallest currency unit (49.00 USD is 4900).
Use the same stable user id everywhere (the identifier table below).

## 1. Click tracking (browser)

\`\`\`html
<script src="${base}/js/affix-tracker.js" data-affix-program-id="${c.programId}" async></script>
\`\`\`

The script reads \`?aff=\` from the URL, records the click and stores the click id in the first-party
cookie \`affix_click_id\` (first click wins for ${c.cookieWindowDays} days).

Clicks are accepted only from the program's allowed origins (${c.allowedOrigins.length ? c.allowedOrigins.join(', ') : 'none yet'}).
A page served from anywhere else (a staging host, a preview URL, localhost) gets 403 and records
nothing: add that origin in the dashboard (program settings, allowed origins) first.

## 2. Signup / lead tracking

Browser, right after signup:

\`\`\`js
window.affix.signup(user.id, user.email);
\`\`\`

Server (preferred; sends the key, so the lead is trusted):

\`\`\`js
import { Affix } from '@affix/sdk/server';
const affix = new Affix({ apiKey: process.env.AFFIX_API_KEY, apiUrl: '${base}' });
await affix.trackLead({ customerExternalId: user.id, clickId: req.cookies.affix_click_id, email: user.email });
\`\`\`

\`\`\`sh
curl -X POST ${base}/api/v1/track/lead -H "Authorization: Bearer $AFFIX_API_KEY" -H 'Content-Type: application/json' \\
  -d '{"click_id":"<affix_click_id cookie>","customer_key":"<user id>","email":"<EMAIL>"}'
\`\`\`

${saleSection(c)}
## Identifiers

| Context | Field name for the user id |
|---|---|
| Browser signup helper | \`customerKey\` (1st argument) |
| Lead API | \`customer_key\` |
| Server-side sale tracking | \`customer_key\` |
| Server SDK | \`customerExternalId\` |
| ${CHECKOUT_FIELD[c.processor]} | \`affix_customer_key\` |

## CLI

| Command | Purpose |
|---|---|
| \`affix login\` | Sign in (opens the browser) |
| \`affix init\` | Create a program and write these files |
| \`affix programs\` | List your programs |
| \`affix status\` | Program health (uses \`AFFIX_API_KEY\`) |
| \`affix test click\` / \`lead\` / \`sale\` / \`chain\` | Send test events (no commission) |

## Endpoints

| Method and path | Auth | Purpose |
|---|---|---|
| POST \`/api/v1/track/click\` | none (browser) | Record a referral click |
| POST \`/api/v1/track/lead\` | optional API key | Bind the user id to the click |
| POST \`/api/v1/track/sale\` | API key | Record a payment and its commission |
| POST \`/api/v1/track/refund\` | API key | Reverse or reduce a commission |
| GET \`/api/v1/programs/me/readiness\` | API key | Integration checklist |

Test events: send \`additional_data.test_mode = true\` to skip commission creation.
`;
}

const CHECKOUT_FIELD: Record<SaleSource, string> = {
  stripe: 'Stripe checkout metadata',
  paddle: 'Paddle checkout custom data',
  lemonsqueezy: 'Lemon Squeezy checkout custom data',
  api: 'Server-side sale tracking (again)',
};

/** Section 3, for the processor the brand chose at \`affix init\`. */
function saleSection(c: ProjectContext): string {
  const base = c.apiBaseUrl;
  const trackSale = `\`\`\`js
await affix.trackSale({ customerExternalId: user.id, amount: 4900, invoiceId: invoice.id, currency: 'USD' });
// 409 means "already recorded": treat it as success.
\`\`\`

\`\`\`sh
curl -X POST ${base}/api/v1/track/sale -H "Authorization: Bearer $AFFIX_API_KEY" -H 'Content-Type: application/json' \\
  -d '{"transaction_id":"<invoice id>","amount_cents":4900,"customer_key":"<user id>"}'
\`\`\`
`;
  const unreferred = `### Unreferred users are normal

Most users never clicked a referral link. For them \`trackLead\` without a click answers 400
\`Customer not found. Provide customer_key or click_id.\` and \`trackSale\` answers 400 with
\`error.code\` = \`no_attribution\`. Both are expected outcomes, not failures: nothing is
recorded, nothing needs a retry (the SDK never retries a 400), log them at debug level at most.
Call both for every user anyway; Affix decides who was referred.

Refunds: \`POST /api/v1/track/refund\` once per refund with that refund's own \`refund_amount_cents\`
and a distinct \`refund_id\`.

`;
  const stripe = `### Stripe Checkout metadata

\`\`\`js
const metadata = {
  affix_click_id: req.cookies.affix_click_id ?? '',
  affix_customer_key: user.id,
  program_id: '${c.programId}',
};
await stripe.checkout.sessions.create({
  mode: 'subscription',
  metadata,
  subscription_data: { metadata }, // Stripe does not copy session metadata to the subscription: renewals need this
  client_reference_id: user.id,
  // ...line items, success_url, cancel_url
});
\`\`\`

`;
  const webhook = (processor: string, events: string) => `Sales are captured from ${processor}'s webhooks: do not also call \`trackSale\` (renewals would count twice).
Endpoint to add in ${processor}: \`${base}/api/v1/webhooks/${c.processor}/${c.programId}\`, events ${events}; save its signing secret on the program's ${processor} page in the dashboard.
`;
  switch (c.processor) {
    case 'stripe':
      return `## 3. Sale tracking (Stripe)

Either connect Stripe in the dashboard (sales are then captured automatically, do not also call
\`trackSale\` or renewals count twice), or report each payment:

${trackSale}
${unreferred}${stripe}`;
    case 'paddle':
      return `## 3. Sale tracking (Paddle Billing)

${webhook('Paddle', '\`transaction.completed\`, \`adjustment.created\`, \`adjustment.updated\`')}
### Paddle checkout custom data

\`\`\`js
Paddle.Checkout.open({
  items: [{ priceId: 'pri_…', quantity: 1 }],
  customData: { affix_click_id: getCookie('affix_click_id') ?? '', affix_customer_key: user.id, affix_email: user.email, program_id: '${c.programId}' },
});
\`\`\`

Renewals need no custom data: they link through the Paddle customer. Amounts are Paddle's own (smallest unit).

${unreferred}`;
    case 'lemonsqueezy':
      return `## 3. Sale tracking (Lemon Squeezy)

${webhook('Lemon Squeezy', '\`order_created\`, \`subscription_created\`, \`subscription_payment_success\`, \`order_refunded\`, \`subscription_payment_refunded\`')}
### Lemon Squeezy checkout custom data

\`\`\`js
const url = new URL(checkoutUrl);
url.searchParams.set('checkout[custom][affix_click_id]', getCookie('affix_click_id') ?? '');
url.searchParams.set('checkout[custom][affix_customer_key]', user.id);
url.searchParams.set('checkout[custom][program_id]', '${c.programId}');
\`\`\`

Renewals need no custom data: they link through the Lemon Squeezy customer and the buyer's email.

${unreferred}`;
    case 'api':
      return `## 3. Sale tracking (your server reports each payment)

${trackSale}
${unreferred}`;
  }
}

const envFile = (values: Record<string, string>) => `${Object.entries(values).map(([name, value]) => `${name}=${value}`).join('\n')}\n`;

export interface WrittenFiles {
  files: string[];
  gitignoreUpdated: boolean;
}

export async function writeProjectFiles(root: string, context: ProjectContext, apiKey: string): Promise<WrittenFiles> {
  const dir = join(root, '.affix');
  await mkdir(dir, { recursive: true });
  const agents = agentsMarkdown(context);
  await writeFile(join(dir, 'AGENTS.md'), agents);
  await writeFile(join(dir, 'skills.md'), agents);
  const envPath = join(dir, '.env');
  await writeFile(envPath, envFile({ AFFIX_API_KEY: apiKey, AFFIX_PROGRAM_ID: String(context.programId), PROCESSOR_CONNECTED_ACCOUNT_ID: '' }), { mode: 0o600 });
  await chmod(envPath, 0o600);
  await writeFile(join(dir, '.env.example'), envFile({ AFFIX_API_KEY: '', AFFIX_PROGRAM_ID: '', PROCESSOR_CONNECTED_ACCOUNT_ID: '' }));
  return {
    files: ['.affix/AGENTS.md', '.affix/skills.md', '.affix/.env', '.affix/.env.example'],
    gitignoreUpdated: await ensureGitignore(root),
  };
}

/** Appends the two .env lines once; running again never duplicates them. */
export async function ensureGitignore(root: string): Promise<boolean> {
  const path = join(root, '.gitignore');
  const current = existsSync(path) ? await readFile(path, 'utf8') : '';
  const present = new Set(current.split(/\r?\n/).map((line) => line.trim()));
  const missing = GITIGNORE_LINES.filter((line) => !present.has(line));
  if (missing.length === 0) return false;
  const prefix = current === '' || current.endsWith('\n') ? '' : '\n';
  await writeFile(path, `${current}${prefix}${missing.join('\n')}\n`);
  return true;
}

/** Reads .affix/.env of a project (AFFIX_API_KEY, AFFIX_PROGRAM_ID). */
export async function readProjectEnv(root: string): Promise<Record<string, string>> {
  const path = join(root, '.affix', '.env');
  if (!existsSync(path)) return {};
  const entries = (await readFile(path, 'utf8'))
    .split(/\r?\n/)
    .map((line) => line.match(/^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => [match[1]!, match[2]!.replace(/^["']|["']$/g, '')]);
  return Object.fromEntries(entries);
}
