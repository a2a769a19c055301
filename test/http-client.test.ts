// The one HTTP client (@affix/sdk/http) as the CLI uses it: one answer shape, exit codes by
// status, a 429 waited out once through p-retry (waits injected, never timed).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send } from '@affix/sdk/http';
import { CliApi } from '../src/cli/client/api.js';
import { CliError, EXIT } from '../src/cli/client/exit-codes.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

const fake = 'http://affix.invalid';
beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  return { message: (error as CliError).message, exitCode: (error as CliError).exitCode };
};

describe('CliApi on the shared client', () => {
  it('waits out one 429 (Retry-After) and answers; a second 429 exits 4', async () => {
    const waits: number[] = [];
    const api = new CliApi(fake, async (ms) => void waits.push(ms));
    nock(fake).get('/api/v1/cli/programs').reply(429, { error: { code: 'rate_limited', message: 'Too many requests.' } }, { 'Retry-After': '3' });
    nock(fake).get('/api/v1/cli/programs').reply(200, { data: [{ id: 1 }] });
    expect(await api.request({ method: 'GET', path: '/api/v1/cli/programs' })).toEqual([{ id: 1 }]);
    expect(waits).toEqual([3000]);
    nock(fake).get('/api/v1/cli/programs').times(2).reply(429, { error: { code: 'rate_limited', message: 'Too many requests.' } }, { 'Retry-After': '3' });
    expect(await refusal(api.request({ method: 'GET', path: '/api/v1/cli/programs' }))).toEqual({ message: 'Too many requests. (rate_limited)', exitCode: EXIT.rateLimited });
    expect(waits).toEqual([3000, 3000]);
  });

  it('exit codes follow the status: 400 -> 5 (not retried), 401 -> 3, 500 -> 1, no answer -> 1 naming the address', async () => {
    const api = new CliApi(fake, async () => undefined);
    const once = nock(fake).post('/api/v1/cli/programs').once().reply(400, { error: { message: 'Missing required fields: name' } });
    expect(await refusal(api.request({ method: 'POST', path: '/api/v1/cli/programs', body: {} }))).toEqual({ message: 'Missing required fields: name', exitCode: EXIT.rejected });
    expect(once.isDone()).toBe(true);
    nock(fake).get('/api/v1/cli/status').reply(401, { error: 'Invalid API token' });
    expect(await refusal(api.request({ method: 'GET', path: '/api/v1/cli/status' }))).toEqual({ message: 'Invalid API token', exitCode: EXIT.auth });
    nock(fake).get('/api/v1/cli/status').reply(500, 'not json');
    expect((await refusal(api.request({ method: 'GET', path: '/api/v1/cli/status' }))).exitCode).toBe(EXIT.failure);
    nock(fake).get('/api/v1/cli/status').replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    const unreachable = await refusal(api.request({ method: 'GET', path: '/api/v1/cli/status' }));
    expect(unreachable.exitCode).toBe(EXIT.failure);
    expect(unreachable.message).toMatch(/^Cannot reach http:\/\/affix\.invalid \(.+\): is Affix running at http:\/\/affix\.invalid\? Pass --api-url or set AFFIX_API_URL\.$/);
  });
});

describe('send', () => {
  it('reads a CSV as text, and an error of a text route from its JSON', async () => {
    nock(fake).get('/export.csv').reply(200, 'a,b\r\n1,2\r\n', { 'Content-Type': 'text/csv' });
    expect(await send(fetch, { method: 'GET', url: `${fake}/export.csv`, read: 'text' })).toMatchObject({ ok: true, status: 200, payload: 'a,b\r\n1,2\r\n' });
    nock(fake).get('/export.csv').reply(404, { error: { code: 'not_found', message: 'Batch not found' } });
    expect(await send(fetch, { method: 'GET', url: `${fake}/export.csv`, read: 'text' })).toMatchObject({ ok: false, status: 404, error: 'Batch not found', code: 'not_found' });
  });
});
