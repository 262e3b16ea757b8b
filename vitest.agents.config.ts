// The agents suite (test/agents), run by `npm run test:agents` only: it needs the agents that
// scripts/setup-agents.sh installs and takes minutes, so the default config (vitest.config.ts) leaves it out.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One agent at a time: each one is a heavy process tree, and they share one simulator's knobs.
    fileParallelism: false,
  },
});
