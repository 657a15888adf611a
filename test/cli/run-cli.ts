import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { IN_PROCESS_HOST, type InProcessInput, type InProcessResult } from '../../src/cli/in-process-run';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MLB_BUNDLE = `${REPO_ROOT}dist/mlb.mjs`;

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bundle as a user would (`npm test` builds it first), from the repository root. */
export function runMlb(args: string[], env: Record<string, string> = {}, stdin?: string): CliRun {
  if (!existsSync(MLB_BUNDLE)) throw new Error(`${MLB_BUNDLE} is missing: run "npm run build" first`);
  const result = spawnSync(process.execPath, [MLB_BUNDLE, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    ...(stdin === undefined ? {} : { input: stdin }),
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The bundle's in-process entry (src/cli/main.ts runMlbInProcess), loaded once per test file. */
type BundleRun = (input: InProcessInput) => Promise<InProcessResult>;
let bundleRun: Promise<BundleRun> | undefined;

function loadBundleRun(): Promise<BundleRun> {
  if (!existsSync(MLB_BUNDLE)) throw new Error(`${MLB_BUNDLE} is missing: run "npm run build" first`);
  // Loaded as a library: the bundle then leaves this process's own command line alone.
  (globalThis as Record<symbol, unknown>)[IN_PROCESS_HOST] = true;
  // vitest.config.ts leaves the bundle to Node's own loader, as the executable is loaded.
  bundleRun ??= import(/* @vite-ignore */ pathToFileURL(MLB_BUNDLE).href).then((m: { runMlbInProcess: BundleRun }) => m.runMlbInProcess);
  return bundleRun;
}

/**
 * Runs the same built bundle's command line inside this process: what `runMlb` answers (stdout, stderr, status;
 * test/cli/in-process-equivalence.test.ts holds them equal) without starting node each time. For commands that only
 * read and print (validate, explain offline, version, help, completion); the process-level contract (SIGPIPE, the
 * status the OS reports) stays with runMlb.
 */
export async function runMlbInProcess(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliRun> {
  const run = await loadBundleRun();
  return run({ argv: args, env: { ...env, FORCE_COLOR: '0' }, cwd: REPO_ROOT, ...(stdin === undefined ? {} : { stdin }) });
}
