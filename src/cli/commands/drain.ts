/**
 * `mlb drain` and `mlb undrain`: ask the daemon on this host to stop (or resume) being elected. The daemon
 * publishes the flag in gossip, so every node's election moves this node's IPs away gracefully; what it answers
 * (changed or not, and a one-line message) is printed as is. Both exit 0 when the node is in the asked state.
 */
import type { CommandModule } from 'yargs';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';
import type { DrainResult } from '../../daemon/control/control-server';

interface DrainArgs {
  socket: string;
  json: boolean;
}

function drainLikeCommand(
  name: 'drain' | 'undrain', describe: string, call: (socket: string) => Promise<DrainResult>,
): CommandModule<object, DrainArgs> {
  return {
    command: name,
    describe,
    builder: (y) =>
      y
        .option('socket', { type: 'string', default: DEFAULT_CONTROL_SOCKET, describe: 'The daemon\'s control socket' })
        .option('json', { type: 'boolean', default: false, describe: 'Print {"changed","message"} as JSON' }),
    handler: async (args) => {
      const result = await call(args.socket);
      process.stdout.write(args.json ? `${JSON.stringify(result)}\n` : `${result.message}\n`);
    },
  };
}

export const drainCommand = drainLikeCommand(
  'drain',
  'Move this host\'s service IPs to other nodes and keep it out of elections (maintenance)',
  (socket) => connectControl(socket).drain(),
);

export const undrainCommand = drainLikeCommand(
  'undrain',
  'Let this host be elected again after mlb drain',
  (socket) => connectControl(socket).undrain(),
);
