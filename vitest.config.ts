import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['app/**/*.test.ts', 'main/**/*.test.ts', 'server/**/*.test.ts', 'renderer/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time, also on two cores (vitest's default there is one): most tests wait
    // on a child process, a socket, a disk or Chromium rather than compute. The whole suite took
    // 1,210 s one file at a time (s29) and 575 s three at a time (s30), on this machine.
    maxWorkers: 3,
    reporters: ['default'],
  },
});
