import { describe, expect, it } from 'vitest';
import { mailHtml } from './mail-html.js';

describe('the HTML part of a mail', () => {
  const brand = { name: 'Northwind Coffee', accent: '#7a3e12', logoUrl: 'https://affix.example/brand-logos/3/ab12' };

  it("carries the brand's name, logo (with its alt) and colour; paragraphs and clickable links; the footer small", () => {
    const html = mailHtml({
      subject: 'You are approved',
      text: 'Northwind Coffee\n\nHi Ana,\nyou are approved. Your link: https://shop.example/?aff=ana.\n\nSign in: https://affix.example/portal/login?x=1&y=2\n--\nStop "digest" mails: https://affix.example/mail/unsubscribe?token=abc\n',
      brand,
    });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<title>You are approved</title>');
    expect(html).toContain('<img src="https://affix.example/brand-logos/3/ab12" alt="Northwind Coffee"');
    expect(html).toContain('border-bottom:4px solid #7a3e12');
    expect(html).toContain('<p style="margin:0 0 16px">Hi Ana,<br>you are approved. Your link: <a href="https://shop.example/?aff=ana" style="color:#7a3e12">https://shop.example/?aff=ana</a>.</p>');
    expect(html).toContain('<a href="https://affix.example/portal/login?x=1&amp;y=2" style="color:#7a3e12">https://affix.example/portal/login?x=1&amp;y=2</a>');
    expect(html).toMatch(/<hr[^>]*>\n<p style="margin:0 0 8px;font-size:13px;color:#555">Stop &quot;digest&quot; mails: <a href="https:\/\/affix.example\/mail\/unsubscribe\?token=abc"/);
  });

  it('escapes everything that came from people (a partner named <script>), and needs no brand', () => {
    const html = mailHtml({ subject: '<b>x</b>', text: 'Hello <script>alert(1)</script> & "you"\n', brand: null });
    expect(html).not.toContain('<script>');
    expect(html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;you&quot;');
    expect(html).toContain('<title>&lt;b&gt;x&lt;/b&gt;</title>');
    expect(html).not.toContain('<img');
  });
});
