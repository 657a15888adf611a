import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MLB_BUNDLE = `${REPO_ROOT}dist/mlb.mjs`;

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bundle as a user would (`npm test` builds it first), from the repository root. */
export function runMlb(args: string[], env: Record<string, string> = {}): CliRun {
  if (!existsSync(MLB_BUNDLE)) throw new Error(`${MLB_BUNDLE} is missing: run "npm run build" first`);
  const result = spawnSync(process.execPath, [MLB_BUNDLE, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
