// What the browser tests share: Debian's Chromium (skipped without it), a page, screenshots on
// demand, and keyboard helpers.
import { existsSync, mkdirSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type Locator, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type TestApi, type TestApiOptions, adminHeaders, createTestDatabase, startTestApi } from './harness.js';
import { startSmtpReceiver } from './smtp.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`[tests] SKIPPED browser tests: no Chromium at ${CHROMIUM}`);
/** AFFIX_SCREENSHOTS=1 refreshes the screenshots committed under docs/screenshots. */
export const SHOTS = process.env.AFFIX_SCREENSHOTS === '1' ? 'docs/screenshots' : null;

let launched: Promise<Browser> | undefined;

/**
 * One Chromium per test worker, kept from one file to the next (the worker keeps its modules:
 * vitest.config.ts): launching and closing it cost about a second of CPU in each of the browser
 * files. Each file gets its own context (cookies, storage, viewport) and closes what it opened.
 */
function sharedBrowser(): Promise<Browser> {
  launched ??= chromium
    .launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    .then((browser) => {
      browser.on('disconnected', () => (launched = undefined));
      return browser;
    }, (error: unknown) => {
      launched = undefined;
      throw error;
    });
  return launched;
}

/** A page of its own in the worker's Chromium; `close` ends every context the file opened. */
export async function openBrowser(viewport: { width: number; height: number }): Promise<{ browser: Browser; page: Page; close: () => Promise<void> }> {
  const browser = await sharedBrowser();
  const before = new Set(browser.contexts());
  const page = await (await browser.newContext({ viewport })).newPage();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  const close = async () => {
    await Promise.all(browser.contexts().filter((context) => !before.has(context)).map((context) => context.close()));
  };
  return { browser, page, close };
}

/** The admin API as a test's setup calls it: the answer's data, or a thrown error naming the refusal. */
export const adminOf =
  (api: () => TestApi) =>
  async (method: string, path: string, body?: unknown) => {
    const reply = await api().request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  };

/** With AFFIX_SCREENSHOTS=1: the page at 390 and 1280 px as docs/screenshots/<name>-<width>.png (then back to 1280). */
export async function screenshotsAt(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is now. Run by axe.run in the page itself:
 * the pages have no frames, so the default per-frame run, finished in a blank page opened for
 * each call, checks the same rules at about twice the cost. Violations only: the tests read
 * nothing else, and axe then skips describing every element that passed. `options` replaces
 * every option set before it (the tags too), so it comes first.
 */
export const axeAudit = (page: Page) => new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).setLegacyMode().analyze();

/** Visible text, whitespace collapsed. */
export const textOf = async (locator: Locator) => ((await locator.first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** Focuses a button and presses Enter, like a keyboard user; waits for the next page. */
export async function submitWithKeyboard(page: Page, buttonName: string): Promise<void> {
  await page.getByRole('button', { name: buttonName, exact: true }).focus();
  const navigation = page.waitForNavigation({ waitUntil: 'load' });
  await page.keyboard.press('Enter');
  await navigation;
}

/** A fresh database, the app on it and a browser page: what each browser test file starts with. */
export async function openBrowserApp(env: Record<string, string>, options: TestApiOptions, viewport: { width: number; height: number }) {
  const db = await createTestDatabase();
  const api = await startTestApi(db.pool, env, options.queueUrl === 'own' ? { ...options, queueUrl: db.url } : options);
  const { browser, page, close: closePages } = await openBrowser(viewport);
  return {
    db,
    api,
    browser,
    page,
    async close() {
      await closePages();
      await api.close();
      await db.drop();
    },
  };
}

/** openBrowserApp whose mail goes to a real SMTP receiver (the portal's sign-in links), at 1280 px. */
export async function openBrowserAppWithMail(secretKey: string) {
  const smtp = await startSmtpReceiver();
  // Mail is sent by the workers (docs/mail.md): they run beside the API.
  const opened = await openBrowserApp({ AFFIX_SECRET_KEY: secretKey, AFFIX_SMTP_URL: smtp.url, AFFIX_WORKER_POLL_SECONDS: '0.5' }, { queueUrl: 'own', workers: true }, { width: 1280, height: 900 });
  return {
    ...opened,
    smtp,
    async close() {
      await opened.close();
      await smtp.close();
    },
  };
}

export type BrowserAppWithMail = Awaited<ReturnType<typeof openBrowserAppWithMail>>;

/** Registers the file's beforeAll / afterAll for openBrowserAppWithMail (nothing without Chromium); `use` receives the app. */
export function browserAppWithMail(secretKey: string, use: (opened: BrowserAppWithMail) => void): void {
  let opened: BrowserAppWithMail | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    opened = await openBrowserAppWithMail(secretKey);
    use(opened);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });
}

/** Signs in on the dashboard's sign-in page as a person would (the form, Enter) and waits for the programs page. */
export async function signInToDashboard(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Password').press('Enter');
  await page.waitForURL(`${baseUrl}/dashboard`);
}
