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

export const ORIGINS_ACTION = "Add your site's origin (for example https://www.example.com) to the program's allowed origins so the browser tracker can record clicks.";

/** The allowed-origins step when the tracker was refused from a site the program does not list. */
export const refusedOriginAction = ({ origin, at }: { origin: string; at: Date }) =>
  `The tracker on ${origin} was refused on ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC: add ${origin} to the program's allowed origins.`;

export function computeReadiness(programId: number, facts: ReadinessFacts): Readiness {
  const gates: Record<GateName, Gate> = {
    // Asked with a key this passes; the dashboard asks for programs that may have none.
    api_key: gate(facts.activeKeys > 0, 'Create an API key for this program (dashboard, or `affix init`) and use it from your backend.'),
    referral_link: gate(facts.activeLinks > 0, 'Create a partner and an active referral link, then share it with ?aff=<code>.'),
    // A listed origin is not enough when the tracker was refused from one that is not listed:
    // the step names the site to allow (the origin is the program's own traffic).
    allowed_origins: gate(facts.allowedOrigins > 0 && facts.refusedOrigin === null, facts.refusedOrigin ? refusedOriginAction(facts.refusedOrigin) : ORIGINS_ACTION),
    // Test events (`affix test`, the set-up page's buttons) prove the wiring; these steps wait for real traffic.
    click_tracked: gate(facts.clickSeen, 'Open your site through a referral link to record a real click (`affix test click` checks the wiring, and does not count).'),
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
