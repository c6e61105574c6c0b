import { defineConfig } from 'vitest/config';

/**
 * `npm run soak`: the long randomized runs (thousands of rounds), not part of `npm test`.
 * Each soak file is `*.soak.ts` next to the test it lengthens; reports go to bench/results/.
 */
export default defineConfig({
  test: {
    include: ['main/**/*.soak.ts', 'test/**/*.soak.ts'],
    testTimeout: 3 * 3600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
