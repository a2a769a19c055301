// GET /programs/me/readiness: which integration steps are done, and what to do next.
import type { ReadinessFacts } from './ports.js';

export type GateStatus = 'pass' | 'fail' | 'unknown';
export interface Gate {
  status: GateStatus;
  next_action: string | null;
}

export const GATE_ORDER = ['api_key', 'referral_link', 'allowed_origins', 'click_tracked', 'lead_tracked', 'sale_tracked'] as const;
export type GateName = (typeof GATE_ORDER)[number];

export interface Readiness {
  program_id: number;
  state: 'ready' | 'incomplete';
  integration_verified: boolean;
  blocker: GateName | null;
  gates: Record<GateName, Gate>;
  last_event_at: string | null;
  counts_24h: { clicks: number; leads: number; sales: number };
}

const gate = (passed: boolean, nextAction: string): Gate => ({
  status: passed ? 'pass' : 'fail',
  next_action: passed ? null : nextAction,
});

export function computeReadiness(programId: number, facts: ReadinessFacts): Readiness {
  const gates: Record<GateName, Gate> = {
    // Asked with a key this passes; the dashboard asks for programs that may have none.
    api_key: gate(facts.activeKeys > 0, 'Create an API key for this program (dashboard, or `affix init`) and use it from your backend.'),
    referral_link: gate(facts.activeLinks > 0, 'Create a partner and an active referral link, then share it with ?aff=<code>.'),
    allowed_origins: gate(
      facts.allowedOrigins > 0,
      "Add your site's origin (for example https://www.example.com) to the program's allowed origins so the browser tracker can record clicks.",
    ),
    click_tracked: gate(facts.clickSeen, 'Open your site through a referral link, or run `affix test click`, to record a click.'),
    lead_tracked: gate(facts.leadSeen, 'Call POST /api/v1/track/lead (or window.affix.signup) when a visitor signs up.'),
    sale_tracked: gate(
      facts.saleSeen,
      'Report a payment with POST /api/v1/track/sale from your backend, or connect Stripe.',
    ),
  };
  const blocker = GATE_ORDER.find((name) => gates[name].status === 'fail') ?? null;
  return {
    program_id: programId,
    state: blocker ? 'incomplete' : 'ready',
    // Clients read this as "done": true only when every gate passes.
    integration_verified: blocker === null,
    blocker,
    gates,
    last_event_at: facts.lastEventAt ? facts.lastEventAt.toISOString() : null,
    counts_24h: { clicks: facts.clicks24h, leads: facts.leads24h, sales: facts.sales24h },
  };
}
