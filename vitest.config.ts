import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The coding agents suite is opt-in (npm run test:agents, vitest.agents.config.ts).
    exclude: ['**/node_modules/**', 'test/agents/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A poll waits for something the code does in its own time (a port check, a window's refresh): on a loaded
    // machine that can take longer than vitest's 1 s default, and a poll only ever returns as soon as it holds.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
