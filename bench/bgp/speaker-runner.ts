/**
 * bench/bgp's "speaker only" row: mlb's BGP speaker (src/announce/bgp BgpAnnouncer, the daemon's own) in the node's
 * namespace, fed the routes directly, without the daemon's file, allocation and election around it. JSON commands
 * on stdin, JSON events on stdout (test/support/runner-peer.ts):
 *   peer {routerAddress, myASN, peerASN}: starts the session (no routes); replies at once.
 *   status: the session's phase and how many prefixes it has sent.
 *   announce {prefixes, communities}: hands every route to the speaker at once; replies with the epoch ms just
 *     before the hand-over (the clock's start; the bench runs on the same machine and clock).
 * Run by bench/bgp.bench.ts through JsonChild; not on its own.
 */
import { createInterface } from 'node:readline';
import { BgpAnnouncer, type BgpPeerPlan } from '../../src/announce/bgp/bgp-announcer';
import type { BGPAnnouncement } from '../../src/election';
import { parseIP, type IP } from '../../src/ip';
import type { BGPPeer } from '../../src/model';
import type { Log } from '../../src/runtime/log';

/** MetalLB's native speaker's default hold time (BGPPeer holdTime unset); irrelevant to the initial sync. */
const HOLD_TIME_MS = 90_000;
const PEER_NAME = 'router';
const NODE_NAME = 'node1';
const ADVERTISEMENT = 'bench';

type Command =
  | { op: 'peer'; routerAddress: string; myASN: number; peerASN: number }
  | { op: 'status' }
  | { op: 'announce'; prefixes: string[]; communities: string[] }
  | { op: 'hello' };

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error: (fields: object, msg?: string) => emit({ ev: 'log', level: 'error', msg, ...fields }),
};
const announcer = new BgpAnnouncer(quiet as unknown as Log & { error(fields: object, msg?: string): void });
let plans: BgpPeerPlan[] = [];

function peerOf(command: { routerAddress: string; myASN: number; peerASN: number }): BGPPeer {
  return {
    kind: 'BGPPeer',
    meta: { name: PEER_NAME, namespace: 'metallb-system', labels: {}, annotations: {} },
    myASN: command.myASN,
    peerASN: command.peerASN,
    peerAddress: parseIP(command.routerAddress) as IP,
    peerPort: 179,
    holdTimeMs: HOLD_TIME_MS,
    keepaliveTimeMs: HOLD_TIME_MS / 3,
    nodeSelectors: [],
    enableGracefulRestart: false,
    ebgpMultiHop: false,
    disableMP: false,
    dualStackAddressFamily: false,
  };
}

function run(command: Command): Record<string, unknown> {
  switch (command.op) {
    case 'peer':
      plans = [{ peer: peerOf(command) }];
      announcer.update(plans, []);
      return {};
    case 'status':
      return { peers: announcer.status() };
    case 'announce': {
      const routes: BGPAnnouncement[] = command.prefixes.map((prefix) => ({
        node: NODE_NAME,
        advertisement: ADVERTISEMENT,
        prefix,
        peers: [PEER_NAME],
        communities: command.communities,
        localPref: null,
      }));
      const since = Date.now();
      announcer.update(plans, routes);
      return { since };
    }
    default:
      return { pid: process.pid };
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id, ...command } = JSON.parse(line) as Command & { id: number };
  try {
    emit({ ev: 'reply', id, ok: true, ...run(command) });
  } catch (error) {
    emit({ ev: 'reply', id, ok: false, message: String((error as Error)?.message ?? error) });
  }
});
lines.on('close', () => process.exit(0));
emit({ ev: 'ready', pid: process.pid });
