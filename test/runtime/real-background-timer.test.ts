// The real scheduler's background (unref'd) timers fire on their own in a process that something else keeps alive,
// even while its event loop sleeps in the I/O poll (a daemon with idle sockets), not only when some later I/O
// wakes it. That they do not keep a process alive by themselves is health-monitor.test.ts's "does not keep the
// process alive".
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

/** How long the child may go without its 50 ms timer before the test wakes it with a line: a failure bound only. */
const WAKE_AFTER_MS = 5_000;

it('a background timer fires while the loop waits on idle input, not when the next input wakes it', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'background-timer-child.ts')], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  // Counted from 'armed', not from the spawn: tsx takes a while to start on a busy machine.
  let waker: NodeJS.Timeout | undefined;
  child.stdout.on('data', () => {
    if (output.includes('fired')) clearTimeout(waker);
    else if (output.includes('armed') && !waker) waker = setTimeout(() => child.stdin.write('wake\n'), WAKE_AFTER_MS);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(waker);
  expect(output).toBe('armed\nfired\n');
  expect(code).toBe(0);
}, 60_000);
