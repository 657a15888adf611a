/**
 * The release before this one, built from git, for tests that mix it with the current code (rolling upgrades).
 * The source comes from `git archive` rather than `git worktree add`: nothing is registered in the shared
 * repository, so a killed test leaves no worktree behind. Its dependencies are this checkout's node_modules and
 * native build (package.json differs only by packaging tools the bundle does not use; binding.gyp is the same),
 * and the built files are cached under the OS temp directory by commit, so a second run starts at once.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/run-cli';

/**
 * The release before this one: the last commit landed before node meta carried the gossip records version.
 * Tests that need it skip, naming it, when a clone lacks it (a shallow clone).
 */
export const PREVIOUS_RELEASE_COMMIT = '3651dac';

export type PreviousRelease = { readonly bundle: string } | { readonly why: string };

/** dist/mlb.mjs of PREVIOUS_RELEASE_COMMIT (built on first use), or why it cannot be had here. */
export function previousReleaseBundle(commit = PREVIOUS_RELEASE_COMMIT): PreviousRelease {
  const cache = join(tmpdir(), `mlb-release-${commit}`);
  const bundle = join(cache, 'mlb.mjs');
  if (existsSync(bundle)) return withModules(cache, bundle);
  const known = spawnSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: REPO_ROOT });
  if (known.status !== 0) return { why: `commit ${commit} (the release before this one) is not in this clone (shallow clone?)` };
  const source = mkdtempSync(join(tmpdir(), `mlb-src-${commit}-`));
  try {
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${source}"`], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(source, 'node_modules'));
    symlinkSync(join(REPO_ROOT, 'build'), join(source, 'build'));
    // MLB_COMMIT: the archive is no git checkout, and `mlb version` must still name the commit.
    execFileSync(process.execPath, ['scripts/build.mjs'], {
      cwd: source,
      env: { ...process.env, MLB_COMMIT: commit },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // Built beside the cache, then renamed: a run killed midway leaves no half-filled cache for the next.
    const staged = `${cache}.${process.pid}`;
    cpSync(join(source, 'dist'), staged, { recursive: true });
    renameSync(staged, cache);
    return withModules(cache, bundle);
  } catch (error) {
    return { why: `cannot build ${commit}: ${(error as Error).message.split('\n')[0]}` };
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
}

/**
 * The bundle loads a few packages (netlink) from a node_modules beside or above it: point the cache's at this
 * checkout's every time, as the checkout that built the cache may be gone.
 */
function withModules(cache: string, bundle: string): PreviousRelease {
  const link = join(cache, 'node_modules');
  rmSync(link, { force: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), link);
  return { bundle };
}
