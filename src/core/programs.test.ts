import { describe, expect, it } from 'vitest';
import { AffixError } from './errors.js';
import { checkUpdateAgainst, parseNewProgram, parseProgramUpdate } from './programs.js';

const valid = { name: 'Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 };
const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AffixError) return `${error.status} ${error.message}`;
    throw error;
  }
  return 'no error';
};

describe('parseNewProgram', () => {
  it("defaults the window to 60 days, browser leads allowed, and the brand's own site as origins", () => {
    expect(parseNewProgram(valid)).toEqual({
      name: 'Shop',
      domain: 'shop.example.com',
      commissionType: 'percent',
      commissionRate: '20',
      attributionWindowDays: 60,
      leadAuth: 'browser_allowed',
      allowedOrigins: ['https://shop.example.com', 'https://www.shop.example.com'],
      recurringDurationMonths: null,
      acceptAllCurrencies: false,
    });
    expect(parseNewProgram({ ...valid, allowed_origins: [] }).allowedOrigins).toEqual([]);
    expect(parseNewProgram({ ...valid, accept_all_currencies: true }).acceptAllCurrencies).toBe(true);
  });
  it('takes cookie_duration as the attribution window (CLI init)', () => {
    expect(parseNewProgram({ ...valid, cookie_duration: 30 }).attributionWindowDays).toBe(30);
  });
  it('answers the spec messages', () => {
    expect(messageOf(() => parseNewProgram({ ...valid, name: undefined }))).toBe(
      '400 Missing required fields: name, domain, commission_type, commission_rate',
    );
    expect(messageOf(() => parseNewProgram({ ...valid, commission_type: 'tiered' }))).toBe(
      '400 Invalid commission_type: tiered. Valid: percent, fixed, recurring_percent, recurring_fixed',
    );
    expect(messageOf(() => parseNewProgram({ ...valid, commission_rate: '20' }))).toBe('400 commission_rate must be a positive number');
    expect(messageOf(() => parseNewProgram({ ...valid, commission_rate: -1 }))).toBe('400 commission_rate must be a positive number');
    expect(messageOf(() => parseNewProgram({ ...valid, commission_rate: 120 }))).toBe(
      '400 commission_rate must be at most 100 for percent commissions',
    );
  });
  it('normalizes allowed origins and refuses paths', () => {
    expect(parseNewProgram({ ...valid, allowed_origins: ['https://WWW.Example.com'] }).allowedOrigins).toEqual(['https://www.example.com']);
    expect(messageOf(() => parseNewProgram({ ...valid, allowed_origins: ['https://example.com/page'] }))).toBe(
      '400 allowed_origins: https://example.com/page is not an origin like https://www.example.com',
    );
  });
});

describe('every bad field at once', () => {
  const fieldsOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      if (error instanceof AffixError) return { message: error.message, fields: error.init.fields };
      throw error;
    }
    return null;
  };
  it('names each bad field, with the first one as the answer', () => {
    const seen = fieldsOf(() => parseNewProgram({ ...valid, commission_rate: 12.345, domain: 'not a domain', attribution_window_days: 0, allowed_origins: ['nope'] }));
    expect(seen?.message).toBe('commission_rate must have at most 2 decimal places');
    expect(Object.keys(seen?.fields ?? {}).sort()).toEqual(['allowed_origins', 'attribution_window_days', 'commission_rate', 'domain']);
    expect(Object.keys(fieldsOf(() => parseProgramUpdate({ name: '', lead_auth: 'maybe' }))?.fields ?? {}).sort()).toEqual(['lead_auth', 'name']);
  });
  it('accept_all_currencies is a boolean, changed only when given', () => {
    expect(parseProgramUpdate({ accept_all_currencies: true })).toEqual({ acceptAllCurrencies: true });
    expect(parseProgramUpdate({ name: 'Shop' })).not.toHaveProperty('acceptAllCurrencies');
    expect(messageOf(() => parseProgramUpdate({ accept_all_currencies: 'yes' }))).toBe('400 accept_all_currencies must be true or false');
  });
  it('a rate has at most 2 decimals (12.34 % or 12.34 of the currency)', () => {
    expect(parseNewProgram({ ...valid, commission_rate: 12.34 }).commissionRate).toBe('12.34');
    expect(messageOf(() => parseNewProgram({ ...valid, commission_rate: 12.345 }))).toBe('400 commission_rate must have at most 2 decimal places');
    expect(messageOf(() => parseNewProgram({ ...valid, commission_type: 'fixed', commission_rate: 9.999 }))).toBe('400 commission_rate must have at most 2 decimal places');
  });
  it('an update is checked against the program it changes', () => {
    const percentProgram = { commission_type: 'percent' as const, commission_rate: 20 };
    expect(messageOf(() => checkUpdateAgainst(percentProgram, parseProgramUpdate({ commission_rate: 150 })))).toBe('400 commission_rate must be at most 100 for percent commissions');
    expect(checkUpdateAgainst(percentProgram, parseProgramUpdate({ commission_type: 'fixed', commission_rate: 150 }))).toEqual({ commissionType: 'fixed', commissionRate: '150' });
    expect(messageOf(() => checkUpdateAgainst({ commission_type: 'fixed', commission_rate: 150 }, parseProgramUpdate({ commission_type: 'percent' })))).toBe('400 commission_rate must be at most 100 for percent commissions');
  });
});

describe('parseProgramUpdate', () => {
  it('returns only the fields sent', () => {
    expect(parseProgramUpdate({ lead_auth: 'server_required' })).toEqual({ leadAuth: 'server_required' });
    expect(messageOf(() => parseProgramUpdate({ lead_auth: 'maybe' }))).toBe('400 lead_auth must be one of: browser_allowed, server_required');
  });
});

describe('defaultOrigins', () => {
  it("is the brand's own site: bare and www, whichever was given", async () => {
    const { defaultOrigins } = await import('./programs.js');
    expect(defaultOrigins('brand.example')).toEqual(['https://brand.example', 'https://www.brand.example']);
    expect(defaultOrigins('www.brand.example')).toEqual(['https://www.brand.example', 'https://brand.example']);
    expect(defaultOrigins('https://Shop.Brand.example/pricing')).toEqual(['https://shop.brand.example', 'https://www.shop.brand.example']);
    expect(defaultOrigins('localhost:3000')).toEqual(['http://localhost:3000']);
    expect(defaultOrigins('my shop')).toEqual([]);
    expect(defaultOrigins('intranet')).toEqual([]);
  });
});

describe('describeCommission', () => {
  it('says what a partner earns, as CLIs print it', async () => {
    const { describeCommission } = await import('./programs.js');
    expect(describeCommission('percent', '20', null)).toBe('20% of the first paid sale');
    expect(describeCommission('fixed', '5', null)).toBe('5.00 on the first paid sale');
    expect(describeCommission('recurring_percent', '12.5', 12)).toBe('12.5% of every sale for 12 months');
    expect(describeCommission('recurring_fixed', 3, null)).toBe('3.00 on every sale');
  });
});

describe('domain', () => {
  it('is a host name: "not a domain" is refused, beside its field', () => {
    const { fields } = (() => {
      try {
        parseNewProgram({ ...valid, domain: 'not a domain' });
      } catch (error) {
        return (error as AffixError).init;
      }
      return { fields: undefined };
    })();
    expect(fields).toEqual({ domain: 'domain must be a host name such as shop.example.com' });
    for (const domain of ['shop.example.com', 'www.brand.co.uk', 'localhost:3000', '127.0.0.1:8080', 'xn--bcher-kva.example']) {
      expect(parseNewProgram({ ...valid, domain }).domain).toBe(domain);
    }
    expect(parseNewProgram({ ...valid, domain: 'Shop.Example.com' }).domain).toBe('shop.example.com');
    expect(() => parseProgramUpdate({ domain: 'intranet' })).toThrow('domain must be a host name');
  });

  it('typed as a URL is refused with the host to type instead (it made links https://https://…)', () => {
    for (const [typed, host] of [['https://brand.test/path', 'brand.test'], ['http://Shop.Example.com', 'shop.example.com'], ['shop.example.com/pricing', 'shop.example.com']]) {
      const error = (() => {
        try {
          parseNewProgram({ ...valid, domain: typed });
        } catch (caught) {
          return caught as AffixError;
        }
        return null;
      })();
      expect(error?.init.fields).toEqual({ domain: `Type the host name only, without https:// or a path: ${host}` });
    }
  });
});

describe('referralUrl', () => {
  it('is https on a real host, http on localhost and addresses, with the code escaped', async () => {
    const { referralUrl } = await import('./programs.js');
    expect(referralUrl('shop.example.com', 'ana')).toBe('https://shop.example.com/?aff=ana');
    expect(referralUrl('localhost:3000', 'ana')).toBe('http://localhost:3000/?aff=ana');
    expect(referralUrl('127.0.0.1:8080', 'a b')).toBe('http://127.0.0.1:8080/?aff=a%20b');
  });
});

describe('deepLink', () => {
  it('any page of the site, with the code, a sub-ID and UTM tags; problems beside their field', async () => {
    const { deepLink } = await import('./programs.js');
    expect(deepLink('shop.example.com', 'ana', {})).toBe('https://shop.example.com/?aff=ana');
    expect(deepLink('shop.example.com', 'ana', { path: 'pricing/pro', sub_id: 'yt-video-7', utm_source: 'youtube', utm_campaign: 'spring sale' })).toBe(
      'https://shop.example.com/pricing/pro?aff=ana&sub_id=yt-video-7&utm_source=youtube&utm_campaign=spring+sale',
    );
    const problems = (() => {
      try {
        deepLink('shop.example.com', 'ana', { path: '//evil.example/x', sub_id: 'a b', utm_medium: 'x'.repeat(101) });
      } catch (error) {
        return (error as AffixError).init.fields;
      }
    })();
    expect(problems).toEqual({
      path: 'A page of shop.example.com, like /pricing (no other address, no ? or #).',
      sub_id: 'Letters, digits, _ . and -, up to 64.',
      utm_medium: 'At most 100 characters.',
    });
  });
});
