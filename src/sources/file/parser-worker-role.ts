/**
 * How a thread knows it is a configuration parser worker, and which file such a worker runs. Apart from
 * worker-parser.ts so that the bundle's entry (src/cli/main.ts) can ask without loading the parser: a start of
 * mlb that is no worker must not pay for the yaml package and the model.
 */
import { isMainThread, workerData } from 'node:worker_threads';

/** workerData.role of a configuration parser worker. */
export const WORKER_ROLE = 'mlb-config-parser';

/** True inside a worker started by workerParser (main.ts then runs runConfigParserWorker instead of the CLI). */
export function isConfigParserWorker(): boolean {
  return !isMainThread && (workerData as { role?: unknown } | null)?.role === WORKER_ROLE;
}

/**
 * The bundle's entry file (dist/mlb.mjs), as main.ts reports it at start. The bundle is split into files
 * (scripts/build.mjs), and worker-parser.ts's own import.meta.url names the file it was split into, which does not
 * run main.ts's check; a worker must start at the entry.
 */
let entryUrl: string | undefined;

export function rememberBundleEntry(url: string): void {
  entryUrl = url;
}

export function bundleEntry(): string | undefined {
  return entryUrl;
}
