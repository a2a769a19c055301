// A test that must fail. scripts/check-test-exit.mjs runs it with the suite's own global setup
// and requires the runner to exit non-zero: a failing test must always stop CI.
import { expect, test } from 'vitest';

test('this test fails on purpose', () => {
  expect(1).toBe(2);
});
