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
  signup(customerKey: string, email?: string): Promise<void>;
  getClickId(): string | null;
  getVisitorId(): string | null;
  consent(granted: boolean): void;
  getData(): AffixData;
  trackTest(data?: Record<string, unknown>): void;
}

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
