/**
 * The lab's BGP router (--bgp): FRR started in the router namespace from <dir>/router, configured as lab-bgp.ts
 * says (a passive peer group, RFC 8212 policies, /32 only, BFD), and a handle on it for later commands. The daemons
 * drop to user frr, so their directory is frr's, and frr must be able to reach it: the lab's directory lets others
 * through (0711: no listing; the node directories stay 0700), and every directory above it must too, or the lab
 * says so before building anything.
 */
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { frrDaemons, frrOwner, frrRouterAt, missingFrr, startFrrIn, type FrrRouter } from './frr-router';
import { labFrrOptions, routerOf } from './lab-bgp';
import { LabError } from './lab-errors';
import type { LabPlan } from './lab-plan';
import { RouterError } from './router-error';

/** Traversable by user frr, listable by root only. */
export const LAB_DIR_MODE_WITH_ROUTER = 0o711;
/** FRR's own directory: its sockets, pid files and log. */
const ROUTER_DIR_MODE = 0o700;

/** The sentence `--bgp` says on a machine without FRR. */
export function frrMissingMessage(why: string): string {
  return `--bgp runs FRR as the lab's router, and FRR is not usable here (${why}): install frr (apt-get install frr)`;
}

/** Throws LabError('noFrr') when FRR cannot run here. */
export function checkFrr(): void {
  const why = missingFrr();
  if (why) throw new LabError(frrMissingMessage(why), 'noFrr');
}

/**
 * Makes <dir>/router for user frr, once the lab's directory (made by Lab.up) exists: the lab's directory becomes
 * 0711, and a directory above it that frr cannot pass through is a LabError naming it.
 */
export async function prepareLabRouterDir(plan: LabPlan): Promise<void> {
  const router = routerOf(plan);
  const owner = frrOwner();
  await chmod(plan.dir, LAB_DIR_MODE_WITH_ROUTER);
  const closed = await firstClosedAncestor(plan.dir, owner);
  if (closed) {
    throw new LabError(
      `FRR's daemons run as user frr and cannot reach ${router.dir}: ${closed} is closed to them; choose a --dir under /run or /tmp (or chmod o+x ${closed})`,
      'routerFailed',
    );
  }
  await mkdir(router.dir, { recursive: true, mode: ROUTER_DIR_MODE });
  await chown(router.dir, owner.uid, owner.gid);
}

/** The first directory above `dir` that `user` may not search (execute permission), or undefined. */
async function firstClosedAncestor(dir: string, user: { uid: number; gid: number }): Promise<string | undefined> {
  for (let path = dirname(dir); ; path = dirname(path)) {
    const s = await stat(path);
    const bit = s.uid === user.uid ? 0o100 : s.gid === user.gid ? 0o010 : 0o001;
    if ((s.mode & bit) === 0) return path;
    if (path === dirname(path)) return undefined;
  }
}

/** Starts FRR in the router namespace from the directory prepareLabRouterDir made; resolves once bgpd has loaded its configuration. */
export async function startLabRouter(plan: LabPlan): Promise<FrrRouter> {
  const router = routerOf(plan);
  try {
    return await startFrrIn(router, router.dir, labFrrOptions(plan));
  } catch (error) {
    throw asLabError(error);
  }
}

/** A handle on the running router of a lab built with --bgp (queries go through vtysh on its sockets). */
export function labRouter(plan: LabPlan): FrrRouter {
  const router = routerOf(plan);
  return frrRouterAt(router, router.dir, frrDaemons(labFrrOptions(plan)));
}

/** A RouterError as the LabError the CLI reports (exit 1, its message, no stack). */
export function asLabError(error: unknown): unknown {
  return error instanceof RouterError ? new LabError(`the lab's router: ${error.message}`, 'routerFailed') : error;
}
