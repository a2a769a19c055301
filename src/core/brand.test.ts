import { describe, expect, it } from 'vitest';
import { applyEditorAction, readEditorAction, rowsOf } from './application-form.js';
import { MIN_CONTRAST, accentContrast, checkAccent, checkLogo, contrastRatio, keyFromLabel, normalizeHex, sniffLogo } from './brand.js';

describe('accent contrast (WCAG 2)', () => {
  it('computes the ratios people quote', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
  });
  it('takes hex in any case and short form, refuses anything else', () => {
    expect(normalizeHex('#1D4ED8')).toBe('#1d4ed8');
    expect(normalizeHex('abc')).toBe('#aabbcc');
    expect(normalizeHex('red')).toBeNull();
    expect(checkAccent('url(javascript:1)')).toEqual({ ok: false, message: 'Give a colour as a hex code, like #1d4ed8.' });
  });
  it('refuses a light colour with its ratio, the minimum and a darker shade that passes', () => {
    const verdict = checkAccent('#ffcc00');
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.message).toBe('#ffcc00 has a contrast of 1.41:1 with white text and the page; at least 4.5:1 is needed (WCAG AA). A darker shade such as #7f6600 passes.');
    expect(accentContrast(verdict.suggestion!)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    expect(checkAccent(verdict.suggestion!)).toEqual({ ok: true, color: verdict.suggestion });
  });
  it('a colour that passes against white but not the page is refused (4.499 is not 4.5)', () => {
    // #767676 is 4.54:1 on white but under 4.5:1 on the page's #f7f7f9.
    const verdict = checkAccent('#767676');
    expect(verdict.ok).toBe(false);
    expect(checkAccent('#1d4ed8')).toEqual({ ok: true, color: '#1d4ed8' });
  });
});

describe('logo bytes', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  it('reads the type from the bytes, not the name', () => {
    expect(sniffLogo(png)).toBe('image/png');
    expect(sniffLogo(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffLogo(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffLogo(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'))).toBeNull();
    expect(sniffLogo(Buffer.from('<!doctype html>'))).toBeNull();
    expect(sniffLogo(Buffer.from('GIF89a'))).toBeNull();
  });
  it('refuses empty and larger than 200 KB', () => {
    expect(checkLogo(Buffer.alloc(0))).toEqual({ ok: false, message: 'Choose an image file.' });
    expect(checkLogo(Buffer.concat([png, Buffer.alloc(200 * 1024)]))).toEqual({ ok: false, message: 'The logo is 201 KB: at most 200 KB.' });
    expect(checkLogo(png)).toEqual({ ok: true, type: 'image/png' });
  });
});

describe('the question editor', () => {
  const stored = [
    { key: 'website', label: 'Your website', type: 'url' as const, required: true },
    { key: 'audience', label: 'Audience', type: 'select' as const, required: false, options: ['<1k', '>1k'] },
  ];
  const none = { key: '', label: '', type: 'text', required: false, options: '' };
  it('keys come from labels, unique', () => {
    expect(keyFromLabel('Your website?', new Set())).toBe('your_website');
    expect(keyFromLabel('Your website', new Set(['your_website']))).toBe('your_website_2');
    expect(keyFromLabel('¿Qué tal?', new Set())).toBe('que_tal');
    expect(keyFromLabel('2025 plans', new Set())).toBe('q_2025_plans');
  });
  it('reads the button pressed', () => {
    expect(readEditorAction('up:2')).toEqual({ kind: 'up', index: 2 });
    expect(readEditorAction('remove:x')).toEqual({ kind: 'save' });
    expect(readEditorAction(undefined)).toEqual({ kind: 'save' });
  });
  it('adds, moves and removes, keeping stored keys (their answers stay readable)', () => {
    const added = applyEditorAction(rowsOf(stored), { ...none, label: 'Your website', type: 'email', required: true }, { kind: 'add' });
    expect(added.problems).toEqual({});
    expect(added.fields.map((f) => f.key)).toEqual(['website', 'audience', 'your_website']);
    const moved = applyEditorAction(rowsOf(added.fields), none, { kind: 'up', index: 2 });
    expect(moved.fields.map((f) => f.key)).toEqual(['website', 'your_website', 'audience']);
    expect(applyEditorAction(rowsOf(moved.fields), none, { kind: 'down', index: 2 }).fields.map((f) => f.key)).toEqual(['website', 'your_website', 'audience']);
    const renamed = rowsOf(moved.fields).map((r) => (r.key === 'website' ? { ...r, label: 'Main site' } : r));
    expect(applyEditorAction(renamed, none, { kind: 'remove', index: 1 }).fields).toEqual([
      { key: 'website', label: 'Main site', type: 'url', required: true },
      { key: 'audience', label: 'Audience', type: 'select', required: false, options: ['<1k', '>1k'] },
    ]);
  });
  it('names each problem beside its field', () => {
    const rows = rowsOf(stored).map((r, i) => (i === 1 ? { ...r, options: '' } : r));
    expect(applyEditorAction(rows, { ...none, type: 'nonsense' }, { kind: 'add' }).problems).toEqual({
      options_1: 'A choice needs its options, one a line.',
      new_label: 'Give the question a label.',
      new_type: 'Choose a type.',
    });
    const twenty = Array.from({ length: 20 }, (_, i) => ({ ...none, key: `q${i}`, label: `Q${i}` }));
    expect(applyEditorAction(twenty, { ...none, label: 'One more' }, { kind: 'add' }).problems).toEqual({ new_label: 'At most 20 questions: remove one first.' });
  });
});
