// The intake's wake-ups say how many new events and deliveries (redeliveries too) each stands for; the workers' listener reads the
// count (src/db/inbox/inbound-events.ts wakeWorkers, src/db/infra/notifications.ts listen).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Wake, readWake } from '../src/core/intake-rate.js';
import { listen } from '../src/db/infra/notifications.js';
import { PROCESSOR_EVENTS_CHANNEL, wakeWorkers } from '../src/db/inbox/inbound-events.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('wake-ups carry their count', () => {
  it('each wake-up reaches a listener with the new events and the deliveries it stands for', async () => {
    const heard: Wake[] = [];
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => (connected = resolve));
    const listening = listen(db.pool, PROCESSOR_EVENTS_CHANNEL, (payload) => {
      if (payload === undefined) return connected(); // the call made once listening starts
      heard.push(readWake(payload));
    }, (error) => { throw error; });
    await ready;
    await wakeWorkers(db.pool, { newEvents: 32, received: 32 });
    await wakeWorkers(db.pool, { newEvents: 0, received: 5 });
    for (let i = 0; i < 100 && heard.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await listening.stop();
    expect(heard).toEqual([{ newEvents: 32, received: 32 }, { newEvents: 0, received: 5 }]);
  });
});
