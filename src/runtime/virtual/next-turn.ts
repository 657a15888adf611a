/**
 * One real turn of the event loop, the only ambient call of the virtual runtime. Between two virtual tasks the
 * clock waits for it so that every promise continuation a task started (the shells are async/await) has run
 * before the next task: Node drains the whole microtask queue (and process.nextTick) before it runs an
 * immediate, however deep the chain. It never delays on the wall clock: virtual time does not move meanwhile.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
