// nock for one test file. Test files share their worker's process (vitest.config.ts: isolate
// false), so interception is switched on while the file's module loads, before anything in it
// keeps a reference to fetch, and off again, with its expectations and net-connect rule, after it.
import nock from 'nock';
import { afterAll } from 'vitest';

export function nockForThisFile(): typeof nock {
  if (!nock.isActive()) nock.activate();
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  });
  return nock;
}
