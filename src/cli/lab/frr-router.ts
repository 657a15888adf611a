/**
 * FRR 8.4 as a router in a namespace: zebra, bfdd (when BFD is configured) and bgpd started with per-instance
 * paths (config, pid files, zserv socket, vty sockets in one directory owned by user frr), so several routers run
 * side by side and none touches /etc/frr or /run/frr. Queries go through vtysh on that instance's vty sockets;
 * the JSON answers become the shared RouterPath/PeerSession shapes (frr-json.ts). `mlb lab up --bgp` runs its
 * router with this, and so do the interop tests (test/support/routers/frr.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFrrConfig, renderFrrDaemonConfigs, type FrrDaemon, type FrrOptions } from './frr-config';
import {
  parseFrrBfdPeers,
  parseFrrNeighbor,
  parseFrrRoutes,
  parseFrrSummary,
  parseZebraBgpCounts,
  parseZebraNextHops,
  type FrrBfdPeer,
  type FrrNeighborState,
  type FrrSummary,
} from './frr-json';
import { ipVersionOfText, type RouterPath } from './route-path';
import { RouterError } from './router-error';
import { execInNetns, killByPidFiles, removeRouterDir, userIds, waitFor, type NetnsTarget } from './router-shell';

/** Where Debian's frr package puts the daemons. */
const FRR_DAEMON_DIR = '/usr/lib/frr';
const FRR_USER = 'frr';
/** What a router needs from the frr package (Debian: apt-get install frr). */
export const FRR_EXECUTABLES = ['zebra', 'bgpd', 'bfdd'].map((d) => join(FRR_DAEMON_DIR, d)).concat('/usr/bin/vtysh');
/** zebra + bgpd load a small config in well under a second; a loaded 2-core CI box gets ten times that. */
const FRR_START_TIMEOUT_MS = 15_000;

export interface FrrRouter {
  readonly host: NetnsTarget;
  /** The instance's directory: frr.conf (the whole config), <daemon>.conf, frr.log, pid files, sockets. */
  readonly dir: string;
  /** The rendered frr.conf, for error messages and transcripts. */
  readonly config: string;
  /** Runs vtysh commands on this instance (each a `-c`) and returns the text. */
  vtysh(...commands: string[]): string;
  /** Runs one vtysh command ending in `json` (appended when missing) and parses it. */
  json(command: string): any;
  /** Sessions of every activated family (`show bgp summary json`). */
  bgpSummary(): FrrSummary;
  /** One neighbor as bgpd sees it (`show bgp neighbors <address> json`): state, negotiated hold time, last reset. */
  neighbor(address: string): FrrNeighborState | undefined;
  /** The paths bgpd holds for a prefix (`show bgp ipv4|ipv6 unicast <prefix> json`); [] when none. */
  routes(prefix: string): RouterPath[];
  /** The next hops zebra installed for a prefix (`show ip|ipv6 route <prefix> json`), sorted; [] when none. */
  installedNextHops(prefix: string): string[];
  /** bfdd's sessions (`show bfd peers json`); [] when bfdd does not run. */
  bfdPeers(): FrrBfdPeer[];
  /** How many BGP routes of a family zebra holds and has in the kernel (`show ip route summary json`): cheap at 10,000 routes. */
  zebraBgpCounts(family?: 4 | 6): { rib: number; fib: number };
  /** The daemons' log file, for failure messages. */
  log(): string;
  /** Kills bgpd, bfdd and zebra by their pid files and removes the directory. Idempotent, synchronous. */
  stop(): void;
}

/** Why FRR cannot run here (a missing executable or user), or undefined when it can. */
export function missingFrr(): string | undefined {
  const missing = FRR_EXECUTABLES.filter((file) => !existsSync(file));
  if (missing.length > 0) return `${missing.join(', ')} missing`;
  return userIds(FRR_USER) ? undefined : `no user ${FRR_USER}`;
}

/** uid and gid of user frr, whom the daemons run as: their directory must be theirs. */
export function frrOwner(): { uid: number; gid: number } {
  const owner = userIds(FRR_USER);
  if (!owner) throw new RouterError('startFailed', `user ${FRR_USER} does not exist: is FRR installed (apt-get install frr)?`);
  return owner;
}

/** The daemons a configuration needs: bfdd only with BFD. */
export function frrDaemons(options: Pick<FrrOptions, 'bfd'>): FrrDaemon[] {
  return options.bfd ? ['zebra', 'bfdd', 'bgpd'] : ['zebra', 'bgpd'];
}

function daemonArgs(daemon: FrrDaemon, dir: string): string[] {
  const args = [
    '-d',
    '-f',
    join(dir, `${daemon}.conf`),
    '-i',
    join(dir, `${daemon}.pid`),
    '-z',
    join(dir, 'zserv.api'),
    '--vty_socket',
    dir,
  ];
  // bfdd's control socket defaults to /run/frr/bfdd.sock, shared by every instance: give each its own.
  if (daemon === 'bfdd') args.push('--bfdctl', join(dir, 'bfdd.sock'));
  return args;
}

/**
 * Writes the configuration into `dir` (which user frr must own and reach) and starts the daemons inside `host`'s
 * namespace; resolves once bgpd has loaded it. On failure the daemons are stopped, the directory removed, and the
 * RouterError carries the config and the log.
 */
export async function startFrrIn(host: NetnsTarget, dir: string, options: Omit<FrrOptions, 'logFile'>): Promise<FrrRouter> {
  const full = { ...options, logFile: join(dir, 'frr.log') };
  const config = renderFrrConfig(full);
  writeFileSync(join(dir, 'frr.conf'), config);
  for (const [daemon, text] of Object.entries(renderFrrDaemonConfigs(full))) writeFileSync(join(dir, `${daemon}.conf`), text);
  const daemons = frrDaemons(options);
  const router = frrRouterAt(host, dir, daemons, config);
  try {
    for (const daemon of daemons) execInNetns(host, join(FRR_DAEMON_DIR, daemon), daemonArgs(daemon, dir));
    // Ready when bgpd answers on its vty with the configured AS (the config is loaded by then).
    await waitFor(`FRR bgpd in ${host.netns} to load its configuration`, () => runningAsn(router) === options.asn, FRR_START_TIMEOUT_MS);
    return router;
  } catch (error) {
    const log = safe(() => router.log());
    router.stop();
    throw new RouterError(
      'startFailed',
      `FRR did not start in ${host.netns}: ${(error as Error).message}\nconfig:\n${config}\nlog:\n${log}`,
      { cause: error },
    );
  }
}

function runningAsn(router: FrrRouter): number | undefined {
  const match = /^router bgp (\d+)/m.exec(router.vtysh('show running-config bgpd'));
  return match ? Number(match[1]) : undefined;
}

function safe(read: () => string): string {
  try {
    return read();
  } catch {
    return '(unreadable)';
  }
}

/** A handle on the FRR instance running from `dir` in `host`'s namespace (started by startFrrIn, maybe by another process). */
export function frrRouterAt(host: NetnsTarget, dir: string, daemons: readonly FrrDaemon[], config = ''): FrrRouter {
  let stopped = false;
  const vtysh = (...commands: string[]): string => execInNetns(host, 'vtysh', ['--vty_socket', dir, ...commands.flatMap((c) => ['-c', c])]);
  const json = (command: string): any => {
    const full = /\bjson$/.test(command) ? command : `${command} json`;
    const text = vtysh(full);
    try {
      return JSON.parse(text.trim() === '' ? '{}' : text);
    } catch (error) {
      throw new RouterError('badOutput', `vtysh -c "${full}" did not print JSON: ${text.slice(0, 500)}`, { cause: error });
    }
  };
  const afi = (prefix: string) => (ipVersionOfText(prefix) === 6 ? 'ipv6' : 'ipv4');
  return {
    host,
    dir,
    config,
    vtysh,
    json,
    bgpSummary: () => parseFrrSummary(json('show bgp summary json')),
    neighbor: (address) => parseFrrNeighbor(json(`show bgp neighbors ${address} json`), address),
    routes: (prefix) => parseFrrRoutes(json(`show bgp ${afi(prefix)} unicast ${prefix} json`)),
    installedNextHops: (prefix) => parseZebraNextHops(json(`show ${afi(prefix) === 'ipv6' ? 'ipv6' : 'ip'} route ${prefix} json`), prefix),
    bfdPeers: () => (daemons.includes('bfdd') ? parseFrrBfdPeers(json('show bfd peers json')) : []),
    zebraBgpCounts: (family = 4) => parseZebraBgpCounts(json(`show ${family === 6 ? 'ipv6' : 'ip'} route summary json`)),
    log: () => readFileSync(join(dir, 'frr.log'), 'utf8'),
    stop: () => {
      if (stopped) return;
      stopped = true;
      killByPidFiles([...daemons].reverse().map((d) => join(dir, `${d}.pid`)));
      removeRouterDir(dir);
    },
  };
}
