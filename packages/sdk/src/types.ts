/** Tracker state snapshot (`getData()`). */
export interface AffixData {
  clickId: string | null;
  programId: number;
  hasAttribution: boolean;
  affiliateUrl: string | null;
}

/** The browser tracker instance (`window.affix`). */
export interface AffixTracker {
  loaded: true;
  programId: number;
  ready: Promise<void>;
  /** Resolves to what happened (never rejects): recorded, or why not. */
  signup(customerKey: string, email?: string): Promise<SignupResult>;
  getClickId(): string | null;
  getVisitorId(): string | null;
  consent(granted: boolean): void;
  getData(): AffixData;
  trackTest(data?: Record<string, unknown>): void;
  /**
   * The discount the visitor's referring partner's group gives (its code, to apply at checkout, and
   * its words), or null: no referral, no discount, or no answer. Never rejects.
   */
  getDiscount(): Promise<AffixDiscount | null>;
}

/** A discount for referred buyers (`getDiscount()`): e.g. { code: 'JANE', description: '20 % off for 3 months' }. */
export interface AffixDiscount {
  code: string;
  description: string;
}

/**
 * What `affix.signup()` resolves to. `refused`: Affix answered with an error (its message);
 * `unreachable`: no answer reached the page, most often because the site's origin is not among
 * the program's allowed origins (the browser then blocks the answer and says only "CORS").
 */
export type SignupResult =
  | { ok: true; outcome: 'recorded'; provisional: boolean }
  | { ok: false; outcome: 'no_consent' | 'no_customer_key' | 'refused' | 'unreachable'; message: string; status?: number };

/** What every server method resolves to; HTTP errors never reject. */
export interface AffixResponse<T> {
  /** true when the HTTP status is 2xx. */
  ok: boolean;
  /** HTTP status; 0 on network error. */
  status: number;
  /** Parsed body when ok; null on error. */
  data: T | null;
  /** Error message (or status text) when not ok. */
  error?: string;
}
