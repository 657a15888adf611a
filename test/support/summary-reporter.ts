import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the summary lists: where a faster suite has to start. */
const SLOWEST_FILES_SHOWN = 12;

/**
 * Ends a run with the slowest test files (tests and hooks, in seconds) and one plain line, "N passed, N failed,
 * N skipped", that CI systems read whatever the runner.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    const slowest = [...testModules]
      .map((m) => ({ file: m.moduleId.replace(`${process.cwd()}/`, ''), seconds: m.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST_FILES_SHOWN);
    if (slowest.length > 1) {
      process.stdout.write(`\nslowest test files:\n${slowest.map((s) => `${s.seconds.toFixed(1).padStart(7)} s  ${s.file}`).join('\n')}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
