import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Go programs are compiled once per run by the interop tests; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two test files at a time (vitest's default on 2 cores is one): most files wait on daemons, peers and
    // namespaces rather than compute, and nothing shares a port (test/support/free-port.ts) or a namespace name.
    maxWorkers: 2,
    // The built bundle (test/cli/run-cli.ts runMlbInProcess) is loaded by Node as the executable is, not transformed
    // again by vite in every test file that runs it (seconds each on a loaded machine).
    server: { deps: { external: [/\/dist\/mlb\.mjs$/] } },
  },
});
