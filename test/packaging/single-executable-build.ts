/**
 * dist/mlb for the packaging tests. `npm test` builds dist/mlb.mjs only (`npm run build`; the one-file build adds
 * some ten seconds of CPU, so it is `npm run dist`); a test that needs dist/mlb builds it here when it is missing
 * or older than the bundle. Two test files may ask at once (vitest runs files in parallel): a lock directory makes
 * the second wait for the first's build instead of building beside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../cli/run-cli';

export const MLB_EXECUTABLE = `${REPO_ROOT}dist/mlb`;
const LOCK = `${REPO_ROOT}dist/.mlb-executable.lock`;
/** How often a waiting test looks whether the other's build has finished. */
const LOCK_POLL_MS = 250;
/** The build takes well under a minute alone; on a loaded 2-core machine several. */
const LOCK_WAIT_MS = 10 * 60_000;
const INPUTS = ['dist/mlb.mjs', 'dist/mlb-tui.mjs', 'dist/mlb-k8s.mjs'].map((f) => `${REPO_ROOT}${f}`);

function upToDate(): boolean {
  if (!existsSync(MLB_EXECUTABLE)) return false;
  const built = statSync(MLB_EXECUTABLE).mtimeMs;
  return INPUTS.every((input) => existsSync(input) && statSync(input).mtimeMs <= built);
}

export async function ensureSingleExecutable(): Promise<string> {
  for (const input of INPUTS) {
    if (!existsSync(input)) throw new Error(`${input} is missing: run "npm run build" first`);
  }
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if (upToDate()) return MLB_EXECUTABLE;
    try {
      mkdirSync(LOCK);
    } catch {
      if (Date.now() > deadline) throw new Error(`${LOCK} has been held for ${LOCK_WAIT_MS / 60_000} min: remove it if no build runs`);
      await sleep(LOCK_POLL_MS);
      continue;
    }
    try {
      if (!upToDate()) execFileSync(process.execPath, ['scripts/build-sea.mjs'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    } finally {
      rmdirSync(LOCK);
    }
  }
}
