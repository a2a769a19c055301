// Every processor's adapter (src/core/processor-port.ts): adding a processor is its reading module and its line here.
import { lemonSqueezyAdapter } from './lemonsqueezy/adapter.js';
import { paddleAdapter } from './paddle/adapter.js';
import type { ProcessorAdapter, ProcessorName } from './processor-port.js';
import { stripeAdapter } from './stripe/adapter.js';

export const ADAPTERS: Record<ProcessorName, ProcessorAdapter> = { stripe: stripeAdapter, paddle: paddleAdapter, lemonsqueezy: lemonSqueezyAdapter };
