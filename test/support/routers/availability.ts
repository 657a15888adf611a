/**
 * Which router packages this machine has, so a test can skip with a clear message outside CI and fail inside
 * it (where .ci/run installs them: a silently skipped interop test is a lost check).
 */
import { existsSync } from 'node:fs';
import { FRR_EXECUTABLES } from '../../../src/cli/lab/frr-router';
import { canUseNetns } from '../netns-lab';

export type RouterKind = 'frr' | 'bird' | 'gobgp' | 'exabgp';

/** The executables each harness runs, and the Debian package that ships them. */
const REQUIREMENTS: Record<RouterKind, { readonly files: readonly string[]; readonly pkg: string }> = {
  frr: { files: FRR_EXECUTABLES, pkg: 'frr' },
  bird: { files: ['/usr/sbin/bird', '/usr/sbin/birdc'], pkg: 'bird2' },
  gobgp: { files: ['/usr/bin/gobgpd', '/usr/bin/gobgp'], pkg: 'gobgpd' },
  exabgp: { files: ['/usr/sbin/exabgp'], pkg: 'exabgp' },
};

/** The Debian packages missing for these routers (empty when all are installed). */
export function missingRouterPackages(kinds: readonly RouterKind[]): string[] {
  return kinds.filter((kind) => REQUIREMENTS[kind].files.some((file) => !existsSync(file))).map((kind) => REQUIREMENTS[kind].pkg);
}

/**
 * Why a router interop test cannot run here, or undefined when it can. Under CI (process.env.CI set) a missing
 * package throws instead: .ci/run installs them, so their absence is a broken CI, not a reason to skip. Not
 * being root skips everywhere, as the other namespace tests do.
 */
export function routerLabSkipReason(kinds: readonly RouterKind[]): string | undefined {
  const missing = missingRouterPackages(kinds);
  if (missing.length > 0) {
    const why = `router packages missing: apt-get install ${missing.join(' ')}`;
    if (process.env.CI) throw new Error(`${why} (CI is set, so this is a failure)`);
    return why;
  }
  const netns = canUseNetns();
  return netns.ok ? undefined : netns.why;
}
