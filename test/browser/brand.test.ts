// Issue 44, item 1: the brand, not Affix. The manager sets the brand (name, pitch, reward
// summary, accent colour checked for contrast, logo checked by its bytes) and edits the apply
// questions as rows (add, reorder, required, type, options, no script needed); the apply page,
// the portal's program page, the QR code and the partner's mail carry the brand; the logo is
// served with its stored type, nosniff and a sandbox; SVG and HTML uploads are refused.
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { adminOf, axeAudit, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, submitWithKeyboard, textOf as visibleText } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { seedPartnerMoney, signIn } from '../support/partners-seed.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('brand-browser-key-0123456789abcdef', (opened) => ({ api, page, smtp } = opened));
const admin = adminOf(() => api);
const textOf = (selector: string) => visibleText(page.locator(selector));
const submit = (name: string) => submitWithKeyboard(page, name);

/** Serious and critical axe-core violations of the page as it is now, at 390 and 1280 px. */
async function seriousViolations(): Promise<string[]> {
  const found: string[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const result = await axeAudit(page);
    found.push(...result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${width}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

/** A 160 × 48 PNG: a dark brown mark on cream (what a coffee brand's logo might be). */
function logoPng(): Buffer {
  const png = new PNG({ width: 160, height: 48 });
  for (let y = 0; y < 48; y++)
    for (let x = 0; x < 160; x++) {
      const i = (y * 160 + x) * 4;
      const mark = (x - 24) ** 2 + (y - 24) ** 2 < 400 || (x > 56 && x < 150 && y > 18 && y < 30);
      png.data.set(mark ? [92, 51, 23, 255] : [250, 243, 230, 255], i);
    }
  return PNG.sync.write(png);
}

describe.skipIf(!hasChromium)('the brand, not Affix', () => {
  it('brand settings with contrast and logo checks, a form editor, and the apply page, portal, QR code and mail carrying the brand', async () => {
    page.setDefaultTimeout(5000);
    const owner = 'owner@northwind.example';
    const { program, ids } = await seedPartnerMoney(api, admin, owner);
    await admin('PATCH', `/programs/${program.id}/application-settings`, { applications_open: true, slug: 'northwind', terms_text: 'No paid search on our brand name.' });
    await signIn(page, api.url, owner);
    const base = `${api.url}/dashboard/programs/${program.id}`;

    // ---- the brand: a colour that fails contrast is refused with its ratio and the minimum ----
    await page.goto(`${base}/brand`);
    expect(await page.title()).toBe('Two Currency Shop: Brand · Affix');
    await page.getByLabel(/^Name partners see/).fill('Northwind Coffee');
    await page.getByLabel(/^Pitch/).fill('Small-batch coffee, roasted to order and shipped in 48 hours. Your audience gets 10% off their first bag.');
    await page.getByLabel('Reward summary').fill('20% of every first order, paid monthly');
    await page.getByLabel(/^Accent colour/).fill('#ffcc00');
    await submit('Save the brand');
    expect(await textOf('#accent_color-error')).toBe('#ffcc00 has a contrast of 1.41:1 with white text and the page; at least 4.5:1 is needed (WCAG AA). A darker shade such as #7f6600 passes.');
    expect(await page.getByLabel(/^Accent colour/).getAttribute('aria-invalid')).toBe('true');
    // What was typed stays; nothing was stored.
    expect(await page.getByLabel(/^Name partners see/).inputValue()).toBe('Northwind Coffee');
    expect((await api.pool.query('SELECT brand_name, accent_color FROM programs WHERE id = $1', [program.id])).rows[0]).toEqual({ brand_name: null, accent_color: null });
    await page.getByLabel(/^Accent colour/).fill('#7a3e12');
    await submit('Save the brand');
    expect(await textOf('[role="status"]')).toBe('Brand saved: the application page and the portal show it now.');
    expect((await api.pool.query('SELECT brand_name, accent_color, reward_summary FROM programs WHERE id = $1', [program.id])).rows[0]).toEqual({
      brand_name: 'Northwind Coffee', accent_color: '#7a3e12', reward_summary: '20% of every first order, paid monthly',
    });

    // ---- the logo: an SVG (it can carry script) and an HTML page named .png are refused by their bytes ----
    const upload = async (name: string, mimeType: string, buffer: Buffer) => {
      await page.getByLabel(/^(Upload|Replace) (a|the) logo/).setInputFiles({ name, mimeType, buffer });
      await submit('Upload the logo');
    };
    await upload('logo.svg', 'image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'));
    expect(await textOf('#logo-error')).toBe('The logo must be a PNG, JPEG or WebP image (SVG is refused: it can carry script).');
    await upload('logo.png', 'image/png', Buffer.from('<!doctype html><script>alert(1)</script>'));
    expect(await textOf('#logo-error')).toBe('The logo must be a PNG, JPEG or WebP image (SVG is refused: it can carry script).');
    await upload('big.png', 'image/png', Buffer.concat([logoPng(), Buffer.alloc(210 * 1024)]));
    expect(await textOf('#logo-error')).toBe('The logo is larger than 200 KB: at most 200 KB.');
    expect((await api.pool.query('SELECT count(*)::int AS n FROM program_logos')).rows[0].n).toBe(0);
    await upload('northwind.png', 'image/png', logoPng());
    expect(await textOf('[role="status"]')).toBe('Logo saved.');
    const logoPath = await page.locator('header img.logo, .brand-preview img.logo').first().getAttribute('src');
    expect(logoPath).toMatch(new RegExp(`^/brand-logos/${program.id}/[0-9a-f]{64}$`));
    const served = await fetch(`${api.url}${logoPath}`);
    expect(served.status).toBe(200);
    expect({
      type: served.headers.get('content-type'),
      nosniff: served.headers.get('x-content-type-options'),
      csp: served.headers.get('content-security-policy'),
      cache: served.headers.get('cache-control'),
    }).toEqual({ type: 'image/png', nosniff: 'nosniff', csp: "default-src 'none'; sandbox", cache: 'public, max-age=31536000, immutable' });
    expect(Buffer.from(await served.arrayBuffer()).equals(logoPng())).toBe(true);
    // Another hash at the same program answers 404, never the logo.
    expect((await fetch(`${api.url}/brand-logos/${program.id}/${'0'.repeat(64)}`)).status).toBe(404);

    // ---- the form editor: add three questions, make one a required choice, move it first ----
    const addQuestion = async (label: string, type: string, options = '', required = false) => {
      await page.locator('#new_label').fill(label);
      await page.locator('#new_type').selectOption({ label: type });
      if (options) await page.locator('#new_options').fill(options);
      if (required) await page.locator('#new_required').check();
      await submit('Add the question');
      expect(await textOf('[role="status"]')).toBe('Questions saved: the application page asks them in this order.');
    };
    await addQuestion('Your website', 'Web address', '', true);
    await addQuestion('Where do you publish?', 'Long text');
    // A choice without options is refused beside its field, and what was typed stays.
    await page.locator('#new_label').fill('Audience size');
    await page.locator('#new_type').selectOption({ label: 'Choice from a list' });
    await submit('Add the question');
    expect(await textOf('#new_options-error')).toBe('A choice needs its options, one a line.');
    expect(await page.locator('#new_label').inputValue()).toBe('Audience size');
    await page.locator('#new_options').fill('Under 1,000\n1,000 to 10,000\nOver 10,000');
    await page.locator('#new_required').check();
    await submit('Add the question');
    await addQuestion('I have read the brand guidelines', 'Checkbox (yes or no)', '', true);
    // Move the audience question to the top: two presses of its own "Move up".
    await submit('Move up Audience size');
    await submit('Move up Audience size');
    // The long-text question becomes required (a save of the rows as they stand).
    await page.locator('#required_2').check();
    await submit('Save the questions');
    expect(await page.locator('fieldset.question legend').allTextContents()).toEqual([
      'Question 1: Audience size', 'Question 2: Your website', 'Question 3: Where do you publish?', 'Question 4: I have read the brand guidelines', 'Add a question',
    ]);
    expect((await api.pool.query('SELECT application_fields FROM programs WHERE id = $1', [program.id])).rows[0].application_fields).toEqual([
      { key: 'audience_size', label: 'Audience size', type: 'select', required: true, options: ['Under 1,000', '1,000 to 10,000', 'Over 10,000'] },
      { key: 'your_website', label: 'Your website', type: 'url', required: true },
      { key: 'where_do_you_publish', label: 'Where do you publish?', type: 'long_text', required: true },
      { key: 'i_have_read_the_brand_guidelines', label: 'I have read the brand guidelines', type: 'checkbox', required: true },
    ]);
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'brand-settings');

    // ---- the apply page: the brand's header, logo, pitch, reward summary; the questions in order ----
    await page.goto(`${api.url}/apply/northwind`);
    expect(await page.title()).toBe('Become a partner of Northwind Coffee · Northwind Coffee');
    expect(await textOf('header')).toBe('Northwind Coffee');
    expect(await page.locator('header img.logo').getAttribute('src')).toBe(logoPath);
    expect(await page.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor)).toBe('rgb(122, 62, 18)');
    expect(await textOf('section.pitch')).toBe('Small-batch coffee, roasted to order and shipped in 48 hours. Your audience gets 10% off their first bag.');
    expect(await textOf('#reward + p')).toBe('20% of every first order, paid monthly, for each customer you refer to shop.example.com.');
    expect(await page.locator('form label').allTextContents()).toEqual([
      'Your name', 'Your email', 'Audience size', 'Your website', 'Where do you publish?', ' I have read the brand guidelines',
      'Your link code (optional; empty for a random one)', ' I accept the program terms',
    ]);
    expect(await page.locator('#answer_where_do_you_publish').evaluate((e) => e.tagName)).toBe('TEXTAREA');
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'brand-apply');
    await page.getByLabel('Your name').fill('Eva Evans');
    await page.getByLabel('Your email').fill('eva@creator.example');
    await page.getByLabel('Audience size').selectOption('1,000 to 10,000');
    await page.getByLabel('Your website').fill('https://eva.example');
    await page.getByLabel('Where do you publish?').fill('A weekly newsletter about home espresso.');
    await page.getByLabel('I accept the program terms').check();
    await submit('Send my application');
    expect(await textOf('#answer_i_have_read_the_brand_guidelines-error')).toBe('I have read the brand guidelines: tick this box to apply.');
    await page.getByLabel('I have read the brand guidelines').check();
    await submit('Send my application');
    expect(await textOf('main [role="status"]')).toBe('Thank you: your application was received. The brand will email you about it.');
    expect(await page.title()).toBe('Application received · Northwind Coffee');
    const answers = (await api.pool.query("SELECT a.answers FROM partner_applications a JOIN partners p ON p.id = a.partner_id WHERE p.email = 'eva@creator.example'")).rows[0].answers;
    expect(answers).toEqual({ audience_size: '1,000 to 10,000', your_website: 'https://eva.example', where_do_you_publish: 'A weekly newsletter about home espresso.', i_have_read_the_brand_guidelines: 'yes' });
    // The applicant's mail comes from the brand and names it first.
    await expect.poll(() => smtp.mails.find((m) => m.to === 'eva@creator.example') ?? null, { timeout: 8000 }).not.toBeNull();
    const received = smtp.mails.find((m) => m.to === 'eva@creator.example')!;
    expect(received.fromName).toBe('Northwind Coffee');
    expect(received.text.split('\n')[0]).toBe('Northwind Coffee');

    // ---- the portal: a neutral header on the list of programs, the brand on the program's page ----
    await admin('POST', `/programs/${program.id}/partners/${ids.ana}/invite`);
    await expect.poll(() => smtp.lastLink('ana@partner.example'), { timeout: 8000 }).not.toBeNull();
    const invitation = smtp.mails.filter((m) => m.to === 'ana@partner.example').at(-1)!;
    expect(invitation.fromName).toBe('Northwind Coffee');
    expect(invitation.text.split('\n')[0]).toBe('Northwind Coffee');
    await page.goto(smtp.lastLink('ana@partner.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submit('Sign in');
    expect(await page.title()).toBe('Your partner programs · Partner portal');
    expect(await textOf('header strong')).toBe('Partner portal');
    await page.getByRole('link', { name: 'Two Currency Shop' }).first().click();
    expect(await page.title()).toBe('Two Currency Shop · Northwind Coffee');
    expect(await textOf('header strong')).toBe('Northwind Coffee');
    expect(await page.locator('header img.logo').getAttribute('src')).toBe(logoPath);
    expect(await textOf('section.pitch')).toContain('Small-batch coffee');
    // The QR code carries the brand's name under it, in the page and in the download.
    await page.getByText('QR code of ana').click();
    expect(await textOf('#link-numbers .qr svg text')).toBe('Northwind Coffee');
    const qr = await page.request.get(`${api.url}${await page.getByRole('link', { name: 'Download the QR code' }).getAttribute('href')}`);
    expect(await qr.text()).toContain('>Northwind Coffee</text>');
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'brand-portal');
    // The program's other portal pages carry its brand too (its referrals here).
    const programPath = new URL(page.url()).pathname;
    await page.goto(`${api.url}${programPath}/referrals`);
    expect(await page.title()).toBe('Your referrals: Two Currency Shop · Northwind Coffee');
    expect(await textOf('header strong')).toBe('Northwind Coffee');
  }, 180_000);
});
