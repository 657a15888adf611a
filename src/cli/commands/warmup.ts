/**
 * `mlb warmup end`: ends this host's flap-damping warm-up now. A host whose daemon ended uncleanly (a crash, a
 * power cut, a kill -9 during maintenance) warms up before it is elected again; an operator who knows the cause
 * (planned maintenance, not a crash loop) ends it early. The daemon logs it (warmUpEnded, reason "operator") and
 * publishes the change in gossip, so every node may elect this one again at once.
 */
import type { CommandModule } from 'yargs';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';

interface WarmUpArgs {
  action: 'end';
  socket: string;
  json: boolean;
}

export const warmupCommand: CommandModule<object, WarmUpArgs> = {
  command: 'warmup <action>',
  describe: "End this host's warm-up after restarts now (after planned maintenance)",
  builder: (y) =>
    y
      .positional('action', { choices: ['end'] as const, demandOption: true, describe: 'end: this host may be elected again at once' })
      .option('socket', { type: 'string', default: DEFAULT_CONTROL_SOCKET, describe: "The daemon's control socket" })
      .option('json', { type: 'boolean', default: false, describe: 'Print {"changed","message"} as JSON' })
      .example('mlb warmup end', 'after a planned reboot: take part in elections now instead of after the warm-up')
      .epilogue(
        'A daemon that ended uncleanly while serving warms up at its next start (30 s, doubling with each such end in ' +
          'the last hour, at most 10 min) and is elected only where no steadier node can be. `mlb status` shows the ' +
          'time left. Exit 0 whether or not a warm-up was running (the message says which).',
      ),
  handler: async (args) => {
    const result = await connectControl(args.socket).endWarmUp();
    process.stdout.write(args.json ? `${JSON.stringify(result)}\n` : `${result.message}\n`);
  },
};
