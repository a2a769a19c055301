// A brand's webhook endpoint on a loopback port: keeps every request it got, answers 200 "ok".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  received: { headers: Record<string, string>; body: string }[];
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
