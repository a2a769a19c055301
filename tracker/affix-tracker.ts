// The Affix browser tracker. Built by esbuild into one dependency-free script served at
// /js/affix-tracker.js. It must never throw into the host page and never block it.
import type { AffixTracker, SignupResult } from '../packages/sdk/src/types.js';

type AffixApi = AffixTracker;

declare global {
  interface Window {
    affix?: AffixApi;
    /** The peer service's name for the same instance (brands moving over keep their code). */
    affitor?: AffixApi;
    AFFIX_API_BASE?: string;
    AFFITOR_API_BASE?: string;
    AFFIX_COOKIE_DOMAIN?: string;
  }
}

const CLICK_COOKIE = 'affix_click_id';
const VISITOR_COOKIE = 'affix_visitor_id';
const AFF_COOKIE = 'affix_aff';
const URL_COOKIE = 'affix_affiliate_url';
const CONSENT_COOKIE = 'affix_consent';
const PROBE_COOKIE = 'affix_probe';
const DEFAULT_WINDOW_DAYS = 60;
const TIMEOUT_MS = 5000;

(function start() {
  try {
    const script = document.currentScript as HTMLScriptElement | null;
    // data-affitor-* (the peer service's attributes) are read when data-affix-* are absent.
    const attr = (name: string) => script?.getAttribute(`data-affix-${name}`) ?? script?.getAttribute(`data-affitor-${name}`) ?? null;
    const debugOn = attr('debug') === 'true';
    const log = (...args: unknown[]) => {
      if (debugOn) console.log('[Affix]', ...args);
    };
    const warn = (...args: unknown[]) => console.warn('[Affix]', ...args);

    const programId = Number(attr('program-id'));
    const scriptOrigin = script?.src ? new URL(script.src, location.href).origin : location.origin;
    const apiBase = (window.AFFIX_API_BASE || window.AFFITOR_API_BASE || attr('api-base') || scriptOrigin).replace(/\/+$/, '');
    const consentRequired = attr('consent') === 'required';
    const cookieDomainOption = window.AFFIX_COOKIE_DOMAIN || attr('cookie-domain');

    // Attribution is shared across subdomains: cookies go on the registrable domain, unless a
    // cookieDomain is given. Browsers refuse cookies on public suffixes (co.uk, and private ones
    // such as github.io), so the shortest parent domain that keeps a probe cookie is the
    // registrable one, with no suffix list shipped here. Hosts without one (localhost, IPs) get
    // host-only cookies. Found on the first write, so nothing is stored before consent.
    let cookieDomain: string | null | undefined = cookieDomainOption || undefined;
    const findCookieDomain = (): string | null => {
      const host = location.hostname;
      const labels = host.split('.');
      if (labels.length < 2 || /^[\d.]+$|:/.test(host)) return null;
      // A value of its own: a probe left behind on a parent by a closed tab never counts.
      const probe = `${PROBE_COOKIE}=${Math.random().toString(36).slice(2)}`;
      for (let i = labels.length - 2; i >= 0; i--) {
        const domain = `.${labels.slice(i).join('.')}`;
        document.cookie = `${probe}; path=/; domain=${domain}; SameSite=Lax`;
        const kept = document.cookie.split('; ').includes(probe);
        document.cookie = `${PROBE_COOKIE}=; path=/; max-age=0; domain=${domain}`;
        if (kept) return domain;
      }
      return null;
    };
    const domainForCookies = () => (cookieDomain === undefined ? (cookieDomain = findCookieDomain()) : cookieDomain);

    const readCookie = (name: string): string | null => {
      const match = document.cookie.split('; ').find((part) => part.startsWith(`${name}=`));
      return match ? decodeURIComponent(match.slice(name.length + 1)) : null;
    };
    const writeCookie = (name: string, value: string, days: number) => {
      const parts = [`${name}=${encodeURIComponent(value)}`, 'path=/', `max-age=${Math.round(days * 86400)}`, 'SameSite=Lax'];
      const domain = domainForCookies();
      if (domain) parts.push(`domain=${domain}`);
      if (location.protocol === 'https:') parts.push('Secure');
      document.cookie = parts.join('; ');
    };
    const deleteCookie = (name: string) => {
      for (const domain of [domainForCookies(), null]) {
        document.cookie = `${name}=; path=/; max-age=0${domain ? `; domain=${domain}` : ''}`;
      }
    };

    let consented = !consentRequired || readCookie(CONSENT_COOKIE) === 'granted';
    let clickId: string | null = consented ? readCookie(CLICK_COOKIE) : null;
    let affiliateUrl: string | null = consented ? readCookie(URL_COOKIE) : null;

    // What a post came to: the answer's body, or why there is none. The program rides in the
    // query too, so a preflight the browser refuses still tells Affix which program's tracker
    // was refused (the set-up checklist names the origin to allow).
    type Posted = { ok: true; json: any } | { ok: false; outcome: 'refused' | 'unreachable'; message: string; status?: number };
    const post = async (path: string, body: Record<string, unknown>): Promise<Posted> => {
      const controller = typeof AbortController === 'function' ? new AbortController() : null;
      const timer = setTimeout(() => controller?.abort(), TIMEOUT_MS);
      const query = Number.isFinite(programId) && programId > 0 ? `?program_id=${programId}` : '';
      try {
        const response = await fetch(`${apiBase}${path}${query}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          keepalive: true,
          credentials: 'omit',
          signal: controller?.signal,
        });
        const json = await response.json().catch(() => null);
        if (!response.ok) {
          const message = String(json?.error?.message ?? json?.message ?? response.statusText);
          warn(`${path} answered ${response.status}:`, message);
          return { ok: false, outcome: 'refused', message, status: response.status };
        }
        return { ok: true, json };
      } catch (error) {
        const message = `${path} got no answer (${(error as Error)?.message ?? error}): if the browser reports CORS, add ${location.origin} to the program's allowed origins`;
        warn(message);
        return { ok: false, outcome: 'unreachable', message };
      } finally {
        clearTimeout(timer);
      }
    };

    const ensureVisitorId = (): string | null => {
      if (!consented) return null;
      let visitor = readCookie(VISITOR_COOKIE);
      if (!visitor) {
        visitor = `v_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
        writeCookie(VISITOR_COOKIE, visitor, 365);
      }
      return visitor;
    };

    const trackArrival = async (): Promise<void> => {
      if (!consented || !Number.isFinite(programId) || programId <= 0) return;
      ensureVisitorId();
      const aff = new URL(location.href).searchParams.get('aff');
      if (!aff) return;
      const existing = readCookie(CLICK_COOKIE);
      const previousAff = readCookie(AFF_COOKIE);
      if (existing && previousAff === aff) {
        log('same referral link again; keeping click', existing);
        return;
      }
      const body: Record<string, unknown> = {
        affiliate_url: location.href,
        page_url: location.href,
        referrer_url: document.referrer || '',
        page_title: document.title,
        user_agent: navigator.userAgent,
        screen_resolution: `${screen.width || 0}x${screen.height || 0}`,
        viewport_size: `${innerWidth}x${innerHeight}`,
        language: navigator.language,
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        additional_data: { program_id: programId },
      };
      // First-click: a different aff with an existing click is sent with it; the answer keeps the first.
      if (existing) body.existing_click_id = existing;
      const posted = await post('/api/v1/track/click', body);
      const result = posted.ok ? posted.json : null;
      if (!result?.click_id) return;
      const days = Number(result.cookie_window_days) > 0 ? Number(result.cookie_window_days) : DEFAULT_WINDOW_DAYS;
      const kept = existing !== null && result.click_id === existing;
      clickId = result.click_id;
      if (!kept) {
        affiliateUrl = location.href;
        writeCookie(URL_COOKIE, affiliateUrl, days);
        writeCookie(AFF_COOKIE, aff, days);
      }
      writeCookie(CLICK_COOKIE, result.click_id, days);
      log(kept ? 'first click kept' : 'click recorded', result.click_id);
    };

    let ready = trackArrival().catch(() => undefined);

    const api: AffixApi = {
      loaded: true,
      programId,
      get ready() {
        return ready;
      },
      async signup(customerKey: string, email?: string): Promise<SignupResult> {
        try {
          if (!consented) {
            log('signup skipped: no consent');
            return { ok: false, outcome: 'no_consent', message: 'signup skipped: the visitor has not consented' };
          }
          if (!customerKey) {
            warn('signup needs a customerKey');
            return { ok: false, outcome: 'no_customer_key', message: 'signup needs a customerKey' };
          }
          await ready;
          const posted = await post('/api/v1/track/lead', {
            click_id: clickId,
            customer_key: String(customerKey),
            email: email ?? null,
            program_id: programId,
            page_url: location.href,
          });
          if (!posted.ok) return posted;
          log('signup recorded for', customerKey);
          return { ok: true, outcome: 'recorded', provisional: posted.json?.provisional === true };
        } catch (error) {
          warn('signup failed', error);
          return { ok: false, outcome: 'unreachable', message: `signup failed: ${(error as Error)?.message ?? error}` };
        }
      },
      getClickId: () => (consented ? (clickId ?? readCookie(CLICK_COOKIE)) : null),
      getVisitorId: () => (consented ? readCookie(VISITOR_COOKIE) : null),
      consent(granted: boolean) {
        try {
          if (granted) {
            consented = true;
            writeCookie(CONSENT_COOKIE, 'granted', 365);
            ready = trackArrival().catch(() => undefined);
          } else {
            consented = false;
            clickId = null;
            affiliateUrl = null;
            for (const name of [CLICK_COOKIE, VISITOR_COOKIE, AFF_COOKIE, URL_COOKIE, CONSENT_COOKIE]) deleteCookie(name);
          }
        } catch (error) {
          warn('consent failed', error);
        }
      },
      getData: () => {
        const current = consented ? (clickId ?? readCookie(CLICK_COOKIE)) : null;
        return { clickId: current, programId, hasAttribution: current !== null, affiliateUrl: consented ? affiliateUrl : null };
      },
      async getDiscount() {
        // The referring link's code: the stored one (after consent), else this page's ?aff=.
        const aff = (consented && readCookie(AFF_COOKIE)) || new URL(location.href).searchParams.get('aff');
        if (!aff || !(programId > 0)) return null;
        try {
          const response = await fetch(`${apiBase}/api/v1/discount?program_id=${programId}&code=${encodeURIComponent(aff)}`, { credentials: 'omit' });
          return response.ok ? ((await response.json())?.data ?? null) : null;
        } catch (error) {
          warn('getDiscount failed', error);
          return null;
        }
      },
      trackTest(data: Record<string, unknown> = {}) {
        const aff = readCookie(AFF_COOKIE) ?? new URL(location.href).searchParams.get('aff');
        if (!aff) return warn('trackTest needs a page opened with ?aff=<code>');
        const url = new URL(location.href);
        url.searchParams.set('aff', aff);
        void post('/api/v1/track/click', { affiliate_url: url.toString(), page_url: location.href, additional_data: { ...data, test_mode: true, program_id: programId } });
      },
    };
    window.affix = api;
    window.affitor = api;
    if (!Number.isFinite(programId) || programId <= 0) warn('data-affix-program-id is missing or not a number');
  } catch (error) {
    console.warn('[Affix] tracker failed to start', error);
  }
})();
