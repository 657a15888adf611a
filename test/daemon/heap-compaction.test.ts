// The daemon's memory-reducing collection (src/daemon/heap-compaction.ts), run in a child process of its own: the
// heap a burst of garbage grew is given back, and the thread goes on afterwards (timers fire). A session
// disconnected from inside its own callback left the thread deadlocked, which only a separate process can show.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = join(__dirname, '../../src/daemon/heap-compaction.ts');
const RUNTIME = join(__dirname, '../../src/runtime/real-runtime.ts');

/** Grows the heap with garbage, compacts, then reports the heap before and after and whether a timer fired. */
const SCRIPT = `
const { processHeapCompactor } = await import(${JSON.stringify(MODULE)});
const { REAL_RUNTIME } = await import(${JSON.stringify(RUNTIME)});
const compact = processHeapCompactor(REAL_RUNTIME);
if (!compact) { console.log(JSON.stringify({ available: false })); process.exit(0); }
let garbage = [];
for (let round = 0; round < 10; round++) { garbage = []; for (let i = 0; i < 200000; i++) garbage.push({ i, s: 'x' + i }); }
garbage = undefined;
const before = process.memoryUsage().heapTotal;
await compact();
const after = process.memoryUsage().heapTotal;
const timerFired = await new Promise((resolve) => { setTimeout(() => resolve(true), 50); });
console.log(JSON.stringify({ available: true, before, after, timerFired }));
`;

describe('processHeapCompactor', () => {
  it('gives back what garbage grew, and the thread runs on after it', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { available: boolean; before: number; after: number; timerFired: boolean };
    expect(result.available).toBe(true);
    expect(result.timerFired).toBe(true);
    expect(result.after).toBeLessThan(result.before / 2);
  });
});
