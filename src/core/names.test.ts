import { describe, expect, it } from 'vitest';
import { hasControlCharacter, withoutControlCharacters } from './names.js';

describe('control characters in names', () => {
  it('finds CR, LF, tab, other C0 and C1 controls, DEL and the Unicode line separators', () => {
    for (const text of ['A\r\nX-Injected: yes', 'a\nb', 'a\rb', 'a\tb', '\u0000', '\u001b[31m', 'a\u007fb', 'a\u0085b', 'a\u2028b', 'a\u2029b']) {
      expect(hasControlCharacter(text), JSON.stringify(text)).toBe(true);
    }
  });

  it('leaves names in any script, spaces and punctuation alone', () => {
    for (const text of ['Zoë Ünal-Smith', '山田 太郎', "O'Brien & Co. (EU)", 'Ana 🙂', 'Ελένη']) {
      expect(hasControlCharacter(text), text).toBe(false);
    }
  });

  it("an identity provider's name: each run of control characters becomes one space", () => {
    expect(withoutControlCharacters('Ana\r\nBcc: x@example.com')).toBe('Ana Bcc: x@example.com');
    expect(withoutControlCharacters('\tAna\u2028')).toBe('Ana');
    expect(withoutControlCharacters('Zoë')).toBe('Zoë');
  });
});
