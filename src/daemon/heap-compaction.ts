/**
 * A loaded file's garbage handed back once the load has settled. Reading, parsing, allocating and electing
 * 10,000 services grows V8's heap, its young generation most of all (32 MB of semi-spaces on a 24 GB machine),
 * and V8 gives that back only in a memory-reducing collection, which its memory reducer starts when it judges the
 * process idle: after a daemon's start that was 30 to 40 s later (`--trace-gc`: RSS 125 MB until then, 89 MB
 * after, at 1,000 services), its marking then landing in the idle time that follows. The daemon asks for that
 * collection itself once the load's decision is bound and its report logged: the same work, done when the change
 * is over, so the memory comes back at once.
 *
 * A plain collection (gc() of --expose-gc) frees the objects but keeps every page it has, the young generation's
 * included; the memory-reducing one V8 offers a program is the one its inspector's HeapProfiler.collectGarbage
 * runs, reached through an in-process session (no port is opened).
 */
import { Session } from 'node:inspector';
import type { Scheduler } from '../runtime/runtime';

/** Collects the heap and returns the memory freed to the system. */
export type CompactHeap = () => Promise<void>;

/** The process's memory-reducing collection, or undefined where this Node was built without its inspector. */
export function processHeapCompactor(scheduler: Scheduler): CompactHeap | undefined {
  if (typeof Session !== 'function') return undefined;
  return () =>
    new Promise<void>((resolve) => {
      const session = new Session();
      try {
        session.connect();
      } catch {
        resolve(); // Another session holds the inspector (a debugger): V8's own reducer will do it.
        return;
      }
      session.post('HeapProfiler.collectGarbage', () => {
        // Not from inside the callback: disconnecting there deadlocks the thread (Node 20: timers never fire again).
        scheduler.after(0, () => {
          session.disconnect();
          resolve();
        });
      });
    });
}
