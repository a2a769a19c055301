// The endpoint an operator switches at a failover (a DNS name or a proxy, as managed services
// do): a TCP proxy on a port of its own, forwarding to one PostgreSQL at a time. Switching cuts
// every open connection, as a failover does; the clients' next connections reach the new target.
import { type Server, type Socket, connect, createServer } from 'node:net';
import { stablePort } from './ports.js';

export interface TcpProxy {
  port: number;
  switchTo(targetPort: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let target = targetPort;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect({ port: target, host: '127.0.0.1' });
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const port = await stablePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port,
    switchTo(targetPort: number) {
      target = targetPort;
      for (const socket of open) socket.destroy();
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
