// `@affix/sdk`: loads the tracker script once; safe to import in server-rendered frameworks.
import type { AffixTracker } from './types.js';

export type { AffixData, AffixResponse, AffixTracker } from './types.js';

export interface LoadAffixOptions {
  /** production: the Affix base in window.AFFIX_API_BASE, else this site's origin; local: http://localhost:3000. */
  env?: 'production' | 'local';
  /** Where the script loads from; overrides env. */
  scriptUrl?: string;
  /** Verbose `[Affix]` console output. */
  debug?: boolean;
}

declare global {
  interface Window {
    affix?: AffixTracker;
    AFFIX_API_BASE?: string;
  }
}

let loading: Promise<AffixTracker | null> | null = null;

function scriptUrlFor(options: LoadAffixOptions): string {
  if (options.scriptUrl) return options.scriptUrl;
  const base = options.env === 'local' ? 'http://localhost:3000' : (window.AFFIX_API_BASE ?? window.location.origin);
  return `${base.replace(/\/+$/, '')}/js/affix-tracker.js`;
}

/** Loads the tracker once and resolves to the same instance on every call; null on the server. */
export function loadAffix(programId: number, options: LoadAffixOptions = {}): Promise<AffixTracker | null> {
  if (typeof window === 'undefined' || typeof document === 'undefined') return Promise.resolve(null);
  if (window.affix?.loaded) return Promise.resolve(window.affix);
  loading ??= new Promise<AffixTracker | null>((resolve) => {
    const script = document.createElement('script');
    script.src = scriptUrlFor(options);
    script.async = true;
    script.setAttribute('data-affix-program-id', String(programId));
    if (options.debug) script.setAttribute('data-affix-debug', 'true');
    if (window.AFFIX_API_BASE) script.setAttribute('data-affix-api-base', window.AFFIX_API_BASE);
    script.onload = () => resolve(window.affix ?? null);
    script.onerror = () => {
      console.error('[Affix] could not load', script.src);
      loading = null;
      resolve(null);
    };
    document.head.appendChild(script);
  });
  return loading;
}
