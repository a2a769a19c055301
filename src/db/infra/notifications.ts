// LISTEN on one channel with a connection of the pool's own, kept for as long as it runs: a lost
// connection is replaced after a pause (the pollers cover the gap), never a crash.
import type { Pool, PoolClient } from './pool.js';

export interface Listening {
  stop(): Promise<void>;
}

export function listen(pool: Pool, channel: string, onNotify: (payload?: string) => void, onError: (error: unknown) => void, retryMs = 1_000): Listening {
  let client: PoolClient | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const connect = async () => {
    timer = null;
    if (stopped) return;
    try {
      const next = await pool.connect();
      next.on('notification', (message) => message.channel === channel && onNotify(message.payload));
      next.on('error', (error) => lost(next, error));
      await next.query(`LISTEN ${channel.replace(/[^a-z0-9_]/g, '')}`);
      if (stopped) return next.release(true);
      client = next;
      onNotify(); // whatever was stored while not listening
    } catch (error) {
      onError(error);
      timer = setTimeout(connect, retryMs);
      timer.unref();
    }
  };
  const lost = (which: PoolClient, error: unknown) => {
    if (client !== which) return;
    client = null;
    which.release(true);
    onError(error);
    if (!stopped) {
      timer = setTimeout(connect, retryMs);
      timer.unref();
    }
  };
  void connect();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const held = client;
      client = null;
      held?.release(true);
    },
  };
}
