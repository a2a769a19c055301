// Log lines never carry driver objects or row data: pg-pool attaches the whole client to a lost
// connection's error; PostgreSQL's `detail` quotes the failing row.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { serializeError } from '../src/platform/logger.js';

describe('error serializer', () => {
  it('keeps message, code and cause; drops err.client, detail, query parameters', () => {
    const cause = Object.assign(new Error('Connection terminated unexpectedly'), { client: { password: 'secret-pw', processID: 42, secretKey: 'backend-key-9f3a' } });
    const error = Object.assign(new Error('insert failed', { cause }), {
      code: '23505',
      detail: 'Failing row contains (jane@example.com, 4900)',
      parameters: ['jane@example.com'],
      client: { connectionParameters: { password: 'secret-pw' } },
    });
    const lines: string[] = [];
    const logger = pino(
      { serializers: { err: serializeError } },
      new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    );
    logger.warn({ err: error }, 'lost');
    // The secret is a string no timestamp, pid or stack line can contain by chance.
    const line = lines.join('');
    expect(line).toContain('insert failed');
    expect(line).toContain('"code":"23505"');
    expect(line).toContain('Connection terminated unexpectedly');
    for (const secret of ['secret-pw', 'jane@example.com', 'Failing row', 'processID', 'backend-key-9f3a']) expect(line).not.toContain(secret);
  });
});
