// A streamed CSV download: chunks go out as they are made; a refusal before the first chunk is an
// ordinary error response; a failure after it cuts the connection, so no client takes a short
// file for the whole one.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendCsv } from '../src/http/csv-stream.js';

let url: string;
let server: ReturnType<typeof createServer>;
const failures: string[] = [];

async function* rows(failAt: number | null, count: number): AsyncGenerator<string> {
  if (failAt === 0) throw Object.assign(new Error('refused before the first row'), { status: 404 });
  yield 'id,name\r\n';
  for (let i = 1; i <= count; i++) {
    if (i === failAt) throw new Error('the database went away mid-export');
    // A page of 1,000 lines at a time, as the exports write them.
    yield Array.from({ length: 1000 }, (_, j) => `${(i - 1) * 1000 + j + 1},partner\r\n`).join('');
  }
}

beforeAll(async () => {
  const app = express();
  app.get('/whole', (_req, res) => sendCsv(res, 'whole.csv', rows(null, 50)));
  app.get('/refused', (_req, res) => sendCsv(res, 'refused.csv', rows(0, 50)));
  app.get('/broken', (_req, res) => sendCsv(res, 'broken.csv', rows(20, 50)));
  app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    failures.push(error.message);
    if (res.headersSent) return;
    res.status(error.status ?? 500).json({ error: error.message });
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('streamed CSV', () => {
  it('sends every chunk, chunked (no Content-Length), as an attachment', async () => {
    const response = await fetch(`${url}/whole`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename=whole.csv');
    expect(response.headers.get('content-length')).toBeNull();
    const lines = (await response.text()).split('\r\n');
    expect(lines.length).toBe(1 + 50_000 + 1);
    expect(lines[50_000]).toBe('50000,partner');
  });

  it('a refusal before the first chunk is an ordinary error response', async () => {
    const response = await fetch(`${url}/refused`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'refused before the first row' });
  });

  it('a failure after the first chunk cuts the download (the client sees an error, never a short file) and is passed on', async () => {
    const response = await fetch(`${url}/broken`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(failures).toContain('the database went away mid-export');
  });
});
