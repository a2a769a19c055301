// pino, with secrets redacted wherever they might appear.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'affix' },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        'api_key',
        'apiKey',
        'token',
        '*.api_key',
        '*.token',
        'email',
        '*.email',
        'stripe_signature',
      ],
      censor: '[redacted]',
    },
  });
}
