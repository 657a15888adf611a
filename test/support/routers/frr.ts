/**
 * FRR 8.4 as a test lab's router: the instance (src/cli/lab/frr-router.ts, shared with `mlb lab up --bgp`) started in a
 * NetnsLab host's namespace, in a private directory under the system's temporary directory owned by user frr, so
 * several routers run side by side and none touches /etc/frr or /run/frr.
 */
import { frrOwner, startFrrIn, type FrrRouter } from '../../../src/cli/lab/frr-router';
import type { LabHost, NetnsLab } from '../netns-lab';
import type { FrrOptions } from '../../../src/cli/lab/frr-config';
import { makeRouterDir } from '../../../src/cli/lab/router-shell';

export type { FrrRouter } from '../../../src/cli/lab/frr-router';
export type { FrrBfd, FrrListenRange, FrrNeighbor, FrrOptions } from '../../../src/cli/lab/frr-config';
export type { FrrBfdPeer, FrrSummary } from '../../../src/cli/lab/frr-json';

export async function startFrr(lab: NetnsLab, host: LabHost, options: Omit<FrrOptions, 'hostname' | 'logFile'>): Promise<FrrRouter> {
  void lab; // the namespaces are the lab's; FRR daemonizes, so its processes are stopped by pid file, not by the lab
  const dir = makeRouterDir(`frr-${host.name}`, frrOwner());
  return startFrrIn(host, dir, { ...options, hostname: host.name });
}
