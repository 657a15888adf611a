// Child process for real-scheduler.test.ts, shaped like the self-check runner: kept alive only by its stdin (its
// event loop sleeps in the I/O poll between lines), with one background timer. Prints 'armed' once it is set,
// 'fired' when it runs and 'woken' when a line arrives: a timer that waited for the line is printed after it.
import { createInterface } from 'node:readline';
import { REAL_BACKGROUND_RUNTIME } from '../../src/runtime/real-runtime';

createInterface({ input: process.stdin }).on('line', () => process.stdout.write('woken\n'));
REAL_BACKGROUND_RUNTIME.after(50, () => {
  process.stdout.write('fired\n');
  process.exit(0);
});
process.stdout.write('armed\n');
