/**
 * BIRD 2.0 in a lab namespace, as a router for mlb: bird in the foreground with its own control socket and
 * config in a private directory, queried through birdc (BIRD 2.0 has no JSON: bird-show.ts reads its text).
 * What the kernel actually installed is read from the namespace's routing table (kernel-routes.ts).
 */
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabHost, NetnsLab } from '../netns-lab';
import { renderBirdConfig, type BirdOptions } from './bird-config';
import { parseBirdBfdSessions, parseBirdProtocols, parseBirdRoutes, type BirdBfdSession, type BirdSession } from './bird-show';
import { kernelNextHops } from './kernel-routes';
import type { RouterPath } from '../../../src/cli/lab/route-path';
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

export type { BirdNeighbor, BirdOptions } from './bird-config';
export type { BirdBfdSession, BirdSession } from './bird-show';

const BIRD_START_TIMEOUT_MS = 10_000;

export interface BirdRouter {
  readonly host: NetnsTarget;
  readonly dir: string;
  readonly config: string;
  readonly pid: number;
  /** Runs one birdc command and returns its text. */
  birdc(command: string): string;
  /** BGP sessions (`show protocols all`): one per neighbor, dynamic ones included. */
  sessions(): BirdSession[];
  /** The paths BIRD holds for exactly this prefix (`show route <prefix> all`); [] when none. */
  routes(prefix: string): RouterPath[];
  /** The next hops the kernel of this namespace holds for the prefix (what traffic follows), sorted. */
  installedNextHops(prefix: string): string[];
  /** BFD sessions (`show bfd sessions`); [] when BFD is not configured. */
  bfdSessions(): BirdBfdSession[];
  log(): string;
  stop(): void;
}

export async function startBird(lab: NetnsLab, host: LabHost, options: Omit<BirdOptions, 'logFile'>): Promise<BirdRouter> {
  const dir = makeRouterDir(`bird-${host.name}`);
  const config = renderBirdConfig({ ...options, logFile: join(dir, 'bird.log') });
  const configFile = join(dir, 'bird.conf');
  writeFileSync(configFile, config);
  const outFd = openSync(join(dir, 'bird.out'), 'a');
  const child = lab.spawnIn(host, 'bird', ['-f', '-c', configFile, '-s', join(dir, 'bird.ctl')], { stdio: ['ignore', outFd, outFd] });
  closeSync(outFd);
  if (child.pid === undefined) throw new RouterError('startFailed', `bird did not spawn in ${host.netns}`);
  const router = birdRouter(host, dir, config, child.pid, Boolean(options.bfd));
  try {
    await waitFor(
      `bird in ${host.netns} to answer on its control socket`,
      () => {
        if (!isAlive(router.pid)) throw new RouterError('startFailed', 'bird exited');
        return /BIRD [\d.]+ ready/.test(router.birdc('show status'));
      },
      BIRD_START_TIMEOUT_MS,
    );
    return router;
  } catch (error) {
    const log = router.log();
    router.stop();
    throw new RouterError(
      'startFailed',
      `BIRD did not start in ${host.netns}: ${(error as Error).message}\nconfig:\n${config}\nlog:\n${log}`,
      { cause: error },
    );
  }
}

function birdRouter(host: LabHost, dir: string, config: string, pid: number, bfd: boolean): BirdRouter {
  let stopped = false;
  const birdc = (command: string): string => execInNetns(host, 'birdc', ['-s', join(dir, 'bird.ctl'), ...command.split(' ')]);
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return '';
    }
  };
  return {
    host,
    dir,
    config,
    pid,
    birdc,
    sessions: () => parseBirdProtocols(birdc('show protocols all')),
    routes: (prefix) => {
      const sessions = parseBirdProtocols(birdc('show protocols all'));
      try {
        return parseBirdRoutes(birdc(`show route ${prefix} all`), prefix, sessions);
      } catch (error) {
        // birdc exits 1 with "Network not found" when BIRD holds no route for the prefix.
        if (error instanceof RouterError && error.code === 'commandFailed' && /Network not found/.test(error.message)) return [];
        throw error;
      }
    },
    installedNextHops: (prefix) => kernelNextHops(host, prefix),
    bfdSessions: () => (bfd ? parseBirdBfdSessions(birdc('show bfd sessions')) : []),
    log: () => `${read('bird.out')}${read('bird.log')}` || '(no log)',
    stop: () => {
      if (stopped) return;
      stopped = true;
      killPids([pid].filter(isAlive));
      removeRouterDir(dir);
    },
  };
}
