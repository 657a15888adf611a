/**
 * `mlb check`: the running daemon's state as a monitoring plugin (Nagios, Icinga, Naemon, Sensu) reports it: one
 * line of why, and the exit status 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. A command of its own because those
 * codes are not mlb's (2 is a usage error everywhere else); here a wrong command line is UNKNOWN (3) too, so a typo
 * in a monitoring configuration never pages anyone as CRITICAL. The rules are check/check-verdict.ts.
 */
import type { CommandModule } from 'yargs';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';
import { UsageError } from '../exit-codes';
import { judgeSnapshot } from '../check/check-verdict';
import { PluginExit, pluginExitCode, pluginOutput, unknownOutput } from '../check/plugin-output';

interface CheckArgs {
  socket: string;
  verbose: boolean;
}

export const checkCommand: CommandModule<object, CheckArgs> = {
  command: 'check',
  describe: 'Monitoring-plugin check of the running daemon: exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN, one line of why',
  builder: (y) =>
    y
      .option('socket', { type: 'string', default: DEFAULT_CONTROL_SOCKET, describe: "The daemon's control socket" })
      .option('verbose', {
        alias: 'v',
        type: 'boolean',
        default: false,
        describe: 'After the status line, every reason on a line of its own',
      })
      .example('mlb check', 'MLB OK - 4 service IPs announced, 3/3 members alive | ips=4 unannounced=0 ...')
      .example('/usr/local/bin/mlb check --socket /run/mlb/mlb.sock', 'as a Nagios/Icinga command (the user needs access to the socket)')
      .epilogue(
        "Exit codes follow the monitoring-plugin convention, not mlb's: 0 OK; 1 WARNING (a member suspect or dead, " +
          'this or another node draining or warming up, a configuration file refused or differing between nodes, a ' +
          'health check failing where another node holds the IP, a BGP session down, a service waiting for the ' +
          'allocator); 2 CRITICAL (a service IP announced by nobody, a service without the IP it is owed, another MAC ' +
          'answering for a service IP); 3 UNKNOWN (no daemon on the socket, no permission, another mlb version, or a ' +
          'wrong command line).',
      )
      // Registered last, so yargs calls it before main's: the command line's mistakes are UNKNOWN here.
      .fail((message, error) => {
        if (error) throw error;
        process.stdout.write(unknownOutput(`mlb check: ${message}`));
        throw new UsageError(`${message}\n\nRun "mlb check --help" for the options.`, PluginExit.unknown);
      }),
  handler: async (args) => {
    try {
      const snapshot = await connectControl(args.socket).getSnapshot();
      const verdict = judgeSnapshot(snapshot);
      process.stdout.write(pluginOutput(verdict, snapshot, args.verbose));
      process.exitCode = pluginExitCode(verdict.level);
    } catch (error) {
      // Whatever kept us from a verdict (no daemon, no permission, a daemon of another version) is UNKNOWN.
      process.stdout.write(unknownOutput(error instanceof Error ? error.message : String(error)));
      process.exitCode = PluginExit.unknown;
    }
  },
};
