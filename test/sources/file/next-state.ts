/** Waiting for a FileSource to reach a state, for the file-source tests. */
import type { FileSource, FileSourceState } from '../../../src/sources/file';

/** Generous for a loaded machine: a reload settles in ~150 ms and parses in well under a second. */
const WAIT_MS = 10_000;

/** The next state `accept` takes; rejects with the last diagnostics after WAIT_MS. */
export function nextState(s: FileSource, accept: (state: FileSourceState) => boolean): Promise<FileSourceState> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching state within ${WAIT_MS} ms; last: ${JSON.stringify(s.state.diagnostics)}`));
    }, WAIT_MS);
    const off = s.onChange((state) => {
      if (!accept(state)) return;
      clearTimeout(timer);
      off();
      resolve(state);
    });
  });
}
