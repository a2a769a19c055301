// The tracker runs on brands' pages: its weight is a feature. Measured as served: the same
// minified script, gzip level 9 (what /js/affix-tracker.js sends when the browser accepts gzip).
import { describe, expect, it } from 'vitest';
import { trackerScript, trackerScriptGzip } from '../src/platform/tracker-bundle.js';

const LIMIT_GZIPPED_BYTES = 5_000;

describe('tracker script size', () => {
  it(`is under ${LIMIT_GZIPPED_BYTES} bytes gzipped, as served`, async () => {
    const minified = Buffer.byteLength(await trackerScript());
    const gzipped = (await trackerScriptGzip()).length;
    expect(gzipped, `tracker is ${minified} bytes minified, ${gzipped} bytes gzipped`).toBeLessThan(LIMIT_GZIPPED_BYTES);
  });
});
