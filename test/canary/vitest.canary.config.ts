// Runs only the canary, with the suite's own global setup (the part that once hid failures).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/canary/*.canary.ts'],
    pool: 'forks',
    reporters: ['dot'],
  },
});
