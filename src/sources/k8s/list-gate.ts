/**
 * Lets one list request run at a time among the watches that share the gate. A list's answer is held three
 * times over while it is read (the bytes, the text, the parsed objects before they are trimmed): for the
 * EndpointSlices of a 10,000-service cluster that is a few hundred MB for a moment, and the speaker's ten watches
 * all listing at once at start (or after a 410) added those moments up. One at a time, the process's peak is the
 * largest list's, not their sum; the watches themselves are not gated.
 */
export type ListGate = <T>(list: () => Promise<T>) => Promise<T>;

export function oneListAtATime(): ListGate {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(list: () => Promise<T>): Promise<T> => {
    const run = last.then(list, list);
    last = run.catch(() => undefined);
    return run;
  };
}
