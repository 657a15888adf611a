/**
 * ExaBGP 4.2 as a passive receiver in a lab namespace: it listens on the host's addresses, accepts sessions
 * from the configured neighbors, and hands every OPEN, UPDATE, NOTIFICATION and state change, decoded to JSON,
 * to a small helper that appends them to received.ndjson; exabgp-log.ts replays that file. It announces
 * nothing. ExaBGP drops to its own user, so the instance directory belongs to that user; its CLI pipes are
 * turned off (they live in a shared /run path).
 */
import { closeSync, chmodSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabHost, NetnsLab } from '../netns-lab';
import { exabgpRoutesFor, parseExabgpLog, type ExabgpLog } from './exabgp-log';
import { ipVersionOfText, type PeerSession, type RouterPath } from '../../../src/cli/lab/route-path';
import {
  isAlive,
  killPids,
  makeRouterDir,
  readPid,
  removeRouterDir,
  RouterError,
  userIds,
  waitFor,
  type NetnsTarget,
} from '../../../src/cli/lab/router-shell';

export type { ExabgpLog, ExabgpUpdate } from './exabgp-log';

export const EXABGP_USER = 'exabgp';
/** ExaBGP (Python) takes about a second to load; a loaded CI box gets ten times that. */
const EXABGP_START_TIMEOUT_MS = 20_000;
const RECEIVED_FILE = 'received.ndjson';

export interface ExabgpOptions {
  readonly asn: number;
  readonly routerId: string;
  readonly neighbors: readonly { readonly address: string; readonly asn: number }[];
  /** Accept IPv6 unicast (MP-BGP) next to IPv4 on every session. */
  readonly ipv6?: boolean;
  /** Hold time offered in OPEN; ExaBGP's default is 180 s. */
  readonly holdTimeS?: number;
}

export interface ExabgpReceiver {
  readonly host: NetnsTarget;
  readonly dir: string;
  readonly config: string;
  readonly pid: number;
  /** Everything received so far, replayed. */
  received(): ExabgpLog;
  /** Paths held now for a prefix. */
  routes(prefix: string): RouterPath[];
  /** Last state per peer ("up" is established). */
  sessions(): PeerSession[];
  log(): string;
  stop(): void;
}

/** The API helper: ExaBGP writes one JSON object a line on its stdin; it appends them, flushed, to a file. */
function receiverScript(dir: string): string {
  return [
    'import os, sys',
    `with open(${JSON.stringify(join(dir, 'receiver.pid'))}, "w") as pid:`,
    '    pid.write(str(os.getpid()))',
    `with open(${JSON.stringify(join(dir, RECEIVED_FILE))}, "a") as out:`,
    '    for line in sys.stdin:',
    '        out.write(line)',
    '        out.flush()',
    '',
  ].join('\n');
}

function renderExabgpConfig(options: ExabgpOptions, host: { ipv4: string; ipv6: string }, dir: string): string {
  const families = ['    ipv4 unicast;', ...(options.ipv6 ? ['    ipv6 unicast;'] : [])];
  const neighbor = (n: ExabgpOptions['neighbors'][number]) => [
    `neighbor ${n.address} {`,
    `  router-id ${options.routerId};`,
    `  local-address ${ipVersionOfText(n.address) === 6 ? host.ipv6 : host.ipv4};`,
    `  local-as ${options.asn};`,
    `  peer-as ${n.asn};`,
    ...(options.holdTimeS !== undefined ? [`  hold-time ${options.holdTimeS};`] : []),
    '  passive true;',
    '  listen 179;',
    '  family {',
    ...families,
    '  }',
    '  api {',
    '    processes [ receiver ];',
    '    neighbor-changes;',
    '    receive {',
    '      parsed;',
    '      open;',
    '      update;',
    '      notification;',
    '    }',
    '  }',
    '}',
  ];
  return [
    'process receiver {',
    `  run /usr/bin/python3 ${join(dir, 'receiver.py')};`,
    '  encoder json;',
    '}',
    ...options.neighbors.flatMap(neighbor),
    '',
  ].join('\n');
}

export async function startExabgp(lab: NetnsLab, host: LabHost, options: ExabgpOptions): Promise<ExabgpReceiver> {
  if (options.neighbors.length === 0) throw new RouterError('invalidOptions', 'an ExaBGP receiver needs neighbors');
  const owner = userIds(EXABGP_USER);
  if (!owner) throw new RouterError('startFailed', `user ${EXABGP_USER} does not exist: is ExaBGP installed (apt-get install exabgp)?`);
  const dir = makeRouterDir(`exabgp-${host.name}`, owner);
  chmodSync(dir, 0o755);
  const config = renderExabgpConfig(options, host, dir);
  writeFileSync(join(dir, 'exabgp.conf'), config);
  writeFileSync(join(dir, 'receiver.py'), receiverScript(dir));
  const bind = [...new Set(options.neighbors.map((n) => (ipVersionOfText(n.address) === 6 ? host.ipv6 : host.ipv4)))];
  const outFd = openSync(join(dir, 'exabgp.out'), 'a');
  const child = lab.spawnIn(host, 'exabgp', [join(dir, 'exabgp.conf')], {
    stdio: ['ignore', outFd, outFd],
    cwd: dir,
    env: {
      ...process.env,
      // Listen for the passive sessions on these addresses (ExaBGP only listens when tcp.bind is set).
      'exabgp.tcp.bind': bind.join(' '),
      // The CLI's named pipes live under /run/exabgp, shared by every instance: not needed here.
      'exabgp.api.cli': 'false',
      'exabgp.log.level': 'INFO',
    },
  });
  closeSync(outFd);
  if (child.pid === undefined) throw new RouterError('startFailed', `exabgp did not spawn in ${host.netns}`);
  const receiver = exabgpReceiver(host, dir, config, child.pid);
  try {
    await waitFor(
      `exabgp in ${host.netns} to listen and start its receiver`,
      () => {
        if (!isAlive(receiver.pid)) throw new RouterError('startFailed', 'exabgp exited');
        return /loaded new configuration successfully/.test(receiver.log()) && readPid(join(dir, 'receiver.pid')) !== undefined;
      },
      EXABGP_START_TIMEOUT_MS,
    );
    return receiver;
  } catch (error) {
    const log = receiver.log();
    receiver.stop();
    throw new RouterError(
      'startFailed',
      `ExaBGP did not start in ${host.netns}: ${(error as Error).message}\nconfig:\n${config}\nlog:\n${log}`,
      { cause: error },
    );
  }
}

function exabgpReceiver(host: LabHost, dir: string, config: string, pid: number): ExabgpReceiver {
  let stopped = false;
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return '';
    }
  };
  const received = () => parseExabgpLog(read(RECEIVED_FILE));
  return {
    host,
    dir,
    config,
    pid,
    received,
    routes: (prefix) => exabgpRoutesFor(received(), prefix),
    sessions: () => [...received().sessions],
    log: () => read('exabgp.out') || '(no log)',
    stop: () => {
      if (stopped) return;
      stopped = true;
      const helper = readPid(join(dir, 'receiver.pid'));
      killPids([pid, ...(helper !== undefined ? [helper] : [])].filter(isAlive));
      removeRouterDir(dir);
    },
  };
}
