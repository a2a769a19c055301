// Ports for servers we start ourselves (PostgreSQL, a service process) that must keep their
// number across restarts. They come from below the kernel's ephemeral range (32768+), so an
// outgoing connection's source port can never take them, and are checked free before use.
import { createServer } from 'node:net';

const LOWEST = 20_000;
const HIGHEST = 32_000;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function stablePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${HIGHEST}`);
}
