/**
 * The lab's questions to a daemon, over its control socket (GET /v1/snapshot, docs/architecture.md convention 10):
 * who owns a service, is a node still warming up. Any failure is "no answer": the lab falls back to what the client
 * sees, so it works with a daemon that has no control API. The reading itself is pure (service-ownership.ts).
 */
import { request } from 'node:http';

/** A daemon answers a snapshot from memory; longer means it is stuck, and the demo does not wait on it. */
const SNAPSHOT_TIMEOUT_MS = 2_000;
/** A lab snapshot is a few kilobytes; this bounds what a wrong socket could make us buffer. */
const MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024;
const SNAPSHOT_PATH = '/v1/snapshot';

/** The body of the daemon's snapshot, or undefined when it cannot be had. */
export function readSnapshotText(socketPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      { socketPath, method: 'GET', path: SNAPSHOT_PATH, agent: false, headers: { accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_SNAPSHOT_BYTES) req.destroy();
          else chunks.push(chunk);
        });
        res.on('end', () => resolve(res.statusCode === 200 ? Buffer.concat(chunks).toString('utf8') : undefined));
        res.on('error', () => resolve(undefined));
      },
    );
    req.setTimeout(SNAPSHOT_TIMEOUT_MS, () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}
