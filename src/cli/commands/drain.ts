/**
 * `mlb drain [NODE]` and `mlb undrain [NODE]`. Without NODE: ask the daemon on this host to stop (or resume) being
 * elected; it publishes the flag in gossip, so every node's election moves this node's IPs away gracefully; what
 * it answers (changed or not, and a one-line message) is printed as is. With NODE: this host's daemon gossips the
 * request (the cluster's gossip key authorises it), and the command waits until NODE answers, printing
 * "node-2 drained (asked by node-1)", or exits 1 saying why it did not (refused, failed on NODE, timed out).
 */
import type { CommandModule } from 'yargs';
import { connectControl, DEFAULT_CONTROL_SOCKET, type ControlClient } from '../control-client';
import type { DrainResult } from '../../daemon/control/control-server';
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';
import { CommandError, UsageError } from '../exit-codes';
import { drainProgress, drainTimeoutMessage, type RemoteDrainRequest } from '../remote-drain-progress';

/**
 * How long `mlb drain NODE` waits for NODE's answer by default. Gossip spreads a request and its answer in well
 * under a second on a LAN (a broadcast, then push/pull every few seconds for anything lost); a node silent for
 * half a minute is down or cut off, and the operator should hear so.
 */
const DEFAULT_REMOTE_DRAIN_WAIT_SECONDS = 30;
/** How often the answer is looked for: one snapshot read each time, cheap for the daemon, prompt for the user. */
const ANSWER_POLL_MS = 200;

interface DrainArgs {
  node?: string;
  socket: string;
  json: boolean;
  wait: number;
}

function drainLikeCommand(
  name: 'drain' | 'undrain',
  describe: string,
  call: (client: ControlClient, node: string | undefined) => Promise<DrainResult>,
): CommandModule<object, DrainArgs> {
  return {
    command: `${name} [node]`,
    describe,
    builder: (y) =>
      y
        .positional('node', { type: 'string', describe: 'Another member to ask through gossip (needs the gossip key); default: this host' })
        .option('socket', { type: 'string', default: DEFAULT_CONTROL_SOCKET, describe: "The daemon's control socket" })
        .option('json', {
          type: 'boolean',
          default: false,
          describe: 'Print {"changed","message"} as JSON (with NODE: also "request" and NODE\'s "drain" answer)',
        })
        .option('wait', {
          type: 'number',
          default: DEFAULT_REMOTE_DRAIN_WAIT_SECONDS,
          describe: 'With NODE: seconds to wait for its answer',
        })
        .example(`mlb ${name}`, `${name} this host`)
        .example(`mlb ${name} node-2`, `ask node-2 through gossip, and wait until it has ${name}ed`),
    handler: async (args) => {
      if (!(args.wait > 0)) throw new UsageError(`--wait ${args.wait}: give a number of seconds above 0`);
      const client = connectControl(args.socket);
      const result = await call(client, args.node);
      if (!result.request) {
        process.stdout.write(args.json ? `${JSON.stringify(result)}\n` : `${result.message}\n`);
        return;
      }
      const { message, snapshot } = await waitForAnswer(client, result.request, args.wait);
      const drain = snapshot.members.find((m) => m.name === result.request?.target)?.drain;
      process.stdout.write(args.json ? `${JSON.stringify({ changed: true, message, request: result.request, drain })}\n` : `${message}\n`);
    },
  };
}

/** Polls the asking daemon's snapshot until the target answers; throws CommandError when it fails or times out. */
async function waitForAnswer(
  client: ControlClient,
  request: RemoteDrainRequest,
  seconds: number,
): Promise<{ message: string; snapshot: ControlSnapshot }> {
  const deadline = Date.now() + seconds * 1000;
  let snapshot: ControlSnapshot | undefined;
  for (;;) {
    snapshot = await client.getSnapshot();
    const progress = drainProgress(snapshot, request);
    if (progress.state === 'done') return { message: progress.message, snapshot };
    if (progress.state === 'failed') throw new CommandError(progress.message, progress.code);
    if (Date.now() >= deadline) throw new CommandError(drainTimeoutMessage(snapshot, request, seconds), 'drainNotConfirmed');
    await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS));
  }
}

export const drainCommand = drainLikeCommand(
  'drain',
  "Move a host's service IPs to other nodes and keep it out of elections (maintenance): this host, or NODE from here",
  (client, node) => client.drain(node),
);

export const undrainCommand = drainLikeCommand(
  'undrain',
  'Let a host be elected again after mlb drain: this host, or NODE from here',
  (client, node) => client.undrain(node),
);
