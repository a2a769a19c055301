// nock for one test file. Test files share their worker's process (vitest.config.ts: isolate
// false), so interception is switched on while the file's module loads, before anything in it
// keeps a reference to fetch, and off again, with its expectations and net-connect rule, after it.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/**
 * `strict`: only loopback connects (the test's own app) while the file runs, and after each test
 * every mock it set up was used, then cleared: a third party's call the code no longer makes fails.
 */
export function nockForThisFile(options: { strict?: boolean } = {}): typeof nock {
  if (!nock.isActive()) nock.activate();
  if (options.strict) {
    beforeAll(() => {
      nock.disableNetConnect();
      nock.enableNetConnect('127.0.0.1');
    });
    afterEach(() => {
      expect(nock.pendingMocks()).toEqual([]);
      nock.cleanAll();
    });
  }
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  });
  return nock;
}
