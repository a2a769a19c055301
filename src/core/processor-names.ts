// The processors Affix reads; an inbox row says which one sent it.
export const PROCESSORS = ['stripe', 'paddle', 'lemonsqueezy'] as const;
export type ProcessorName = (typeof PROCESSORS)[number];
export const isProcessor = (value: unknown): value is ProcessorName => (PROCESSORS as readonly unknown[]).includes(value);

/** A processor's display name, for pages, messages and docs. */
export const PROCESSOR_NAMES: Record<ProcessorName, string> = { stripe: 'Stripe', paddle: 'Paddle', lemonsqueezy: 'Lemon Squeezy' };
