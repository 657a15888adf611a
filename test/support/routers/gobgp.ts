/**
 * GoBGP 3 in a lab namespace: gobgpd in the foreground (its pid is the child's, ip netns exec execs it), its
 * gRPC API on the namespace's own loopback, driven with the gobgp CLI. Two roles: a peer for mlb (sessions,
 * the global RIB as RouterPaths), and a route source (announce/withdraw one prefix, inject an MRT table dump
 * of thousands) standing in for mlb in the self-test and serving as the baseline in bench/bgp.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabHost, NetnsLab } from '../netns-lab';
import { GOBGP_API_PORT, renderGobgpConfig, type GobgpOptions } from './gobgp-config';
import { parseGobgpNeighbors, parseGobgpRib, parseGobgpRibSummary } from './gobgp-json';
import { ipVersionOfText, type Origin, type PeerSession, type RouterPath } from '../../../src/cli/lab/route-path';
import {
  execInNetns,
  isAlive,
  killPids,
  makeRouterDir,
  removeRouterDir,
  RouterError,
  waitFor,
  type NetnsTarget,
} from '../../../src/cli/lab/router-shell';

export type { GobgpNeighbor, GobgpOptions } from './gobgp-config';

/** gobgpd answers its API within ~100 ms of starting; a loaded CI box gets a hundred times that. */
const GOBGP_START_TIMEOUT_MS = 10_000;
/** The CLI exits at once when its input ends; a hung one is killed after this. */
const MRT_FINISH_TIMEOUT_MS = 10_000;

export interface Announcement {
  /** Default: GoBGP picks its session address (IPv4); IPv6 routes over an IPv4 session need one. */
  readonly nextHop?: string;
  /** Default igp, as MetalLB sends. */
  readonly origin?: Origin;
  readonly communities?: readonly string[];
  readonly largeCommunities?: readonly string[];
  /** Sent to iBGP peers only (GoBGP strips it towards eBGP peers, as RFC 4271 section 5.1.5 says). */
  readonly localPref?: number;
}

export interface MrtInjection {
  /** Closes the CLI's input and waits for it to exit (killing it after a grace period). */
  finish(): Promise<void>;
}

export interface GobgpRouter {
  readonly host: NetnsTarget;
  readonly dir: string;
  readonly config: string;
  readonly pid: number;
  /** Runs the gobgp CLI against this instance and returns its text. */
  cli(...args: string[]): string;
  /** Runs the gobgp CLI with -j and parses the answer. */
  json(...args: string[]): any;
  neighbors(): PeerSession[];
  /** The paths of the global RIB for a prefix (received ones and local ones). */
  routes(prefix: string): RouterPath[];
  /** Counts of the global RIB of a family: destinations (prefixes) and paths. */
  ribSummary(family?: 4 | 6): { destinations: number; paths: number };
  announce(prefix: string, attributes?: Announcement): void;
  withdraw(prefix: string): void;
  /**
   * Streams an MRT TABLE_DUMP_V2 dump into the global RIB (`gobgp mrt inject global /dev/stdin`). The CLI is
   * kept connected until finish(): GoBGP 3.10's CLI returns without closing its gRPC stream, and the server
   * drops whatever it had not processed yet when the CLI exits, so a plain inject of a file loses most routes.
   * Call finish() once the routes are where they should be (the RIB, or the router downstream).
   */
  injectMrt(dump: Uint8Array): MrtInjection;
  log(): string;
  /** Kills gobgpd by pid and removes the directory. Idempotent, synchronous. */
  stop(): void;
}

/** The gobgp CLI arguments that add one path, with the attributes MetalLB's speaker would set. */
export function announceArgs(prefix: string, attributes: Announcement = {}): string[] {
  const args = ['global', 'rib', 'add', prefix, 'origin', attributes.origin ?? 'igp'];
  if (attributes.nextHop) args.push('nexthop', attributes.nextHop);
  if (attributes.communities?.length) args.push('community', attributes.communities.join(','));
  if (attributes.largeCommunities?.length) args.push('large-community', attributes.largeCommunities.join(','));
  if (attributes.localPref !== undefined) args.push('local-pref', String(attributes.localPref));
  args.push('-a', ipVersionOfText(prefix) === 6 ? 'ipv6' : 'ipv4');
  return args;
}

export async function startGobgp(lab: NetnsLab, host: LabHost, options: GobgpOptions): Promise<GobgpRouter> {
  const dir = makeRouterDir(`gobgp-${host.name}`);
  const config = renderGobgpConfig(options);
  const configFile = join(dir, 'gobgpd.toml');
  writeFileSync(configFile, config);
  const logFd = openSync(join(dir, 'gobgpd.log'), 'a');
  const child = lab.spawnIn(host, 'gobgpd', ['-f', configFile, '--api-hosts', `127.0.0.1:${GOBGP_API_PORT}`, '--pprof-disable'], {
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  if (child.pid === undefined) throw new RouterError('startFailed', `gobgpd did not spawn in ${host.netns}`);
  writeFileSync(join(dir, 'gobgpd.pid'), `${child.pid}\n`);
  const router = gobgpRouter(host, dir, config, child.pid);
  try {
    await waitFor(
      `gobgpd in ${host.netns} to answer its API`,
      () => {
        if (!isAlive(router.pid)) throw new RouterError('startFailed', 'gobgpd exited');
        return router.json('global').asn === options.asn;
      },
      GOBGP_START_TIMEOUT_MS,
    );
    return router;
  } catch (error) {
    const log = router.log();
    router.stop();
    throw new RouterError(
      'startFailed',
      `GoBGP did not start in ${host.netns}: ${(error as Error).message}\nconfig:\n${config}\nlog:\n${log}`,
      { cause: error },
    );
  }
}

function streamMrt(host: LabHost, dump: Uint8Array): MrtInjection {
  // Node gives a child a socket, not a pipe, as stdin, and the CLI cannot open /dev/stdin on a socket: cat
  // turns it into a pipe.
  const cli = `cat | gobgp -u 127.0.0.1 -p ${GOBGP_API_PORT} mrt inject global /dev/stdin`;
  const child = spawn('ip', ['netns', 'exec', host.netns, 'sh', '-c', cli], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdin?.on('error', () => undefined); // an early exit is reported by finish(), not as an unhandled error
  child.stdin?.write(dump);
  return {
    finish: async () => {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), MRT_FINISH_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      if (code !== 0) throw new RouterError('commandFailed', `gobgp mrt inject exited ${code}: ${output.trim()}`);
    },
  };
}

function gobgpRouter(host: LabHost, dir: string, config: string, pid: number): GobgpRouter {
  let stopped = false;
  const cli = (...args: string[]): string => execInNetns(host, 'gobgp', ['-u', '127.0.0.1', '-p', String(GOBGP_API_PORT), ...args]);
  const json = (...args: string[]): any => {
    const text = cli(...args, '-j');
    try {
      return JSON.parse(text.trim() === '' ? '{}' : text);
    } catch (error) {
      throw new RouterError('badOutput', `gobgp ${args.join(' ')} -j did not print JSON: ${text.slice(0, 500)}`, { cause: error });
    }
  };
  const afi = (prefix: string) => (ipVersionOfText(prefix) === 6 ? 'ipv6' : 'ipv4');
  return {
    host,
    dir,
    config,
    pid,
    cli,
    json,
    neighbors: () => parseGobgpNeighbors(json('neighbor')),
    routes: (prefix) => parseGobgpRib(json('global', 'rib', '-a', afi(prefix), prefix)),
    ribSummary: (family = 4) => parseGobgpRibSummary(json('global', 'rib', 'summary', '-a', family === 6 ? 'ipv6' : 'ipv4')),
    announce: (prefix, attributes) => void cli(...announceArgs(prefix, attributes)),
    withdraw: (prefix) => void cli('global', 'rib', 'del', prefix, '-a', afi(prefix)),
    injectMrt: (dump) => streamMrt(host, dump),
    log: () => {
      try {
        return readFileSync(join(dir, 'gobgpd.log'), 'utf8');
      } catch {
        return '(no log)';
      }
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      killPids([pid].filter(isAlive));
      removeRouterDir(dir);
    },
  };
}
