/**
 * `mlb install`: the README's hand install on a plain host in one command (src/cli/install/). It asks only for what
 * differs per host, checks everything before writing anything, and ends with `mlb validate` and `mlb status`.
 */
import type { CommandModule } from 'yargs';
import { UsageError } from '../exit-codes';
import { runInstall } from '../install/run-install';

interface InstallArgs {
  root: string;
  'node-name'?: string;
  'gossip-bind'?: string;
  join?: string;
  'gossip-key-from'?: string;
  'first-host': boolean;
  config?: string;
  binary?: string;
  yes: boolean;
  start: boolean;
  force: boolean;
  'dry-run': boolean;
}

export const installCommand: CommandModule<object, InstallArgs> = {
  command: 'install',
  describe:
    'Install mlb on this host: binary, /etc/mlb files, /etc/default/mlb, group mlb and the systemd unit; then start it, validate and show the status',
  builder: (y) =>
    y
      .option('node-name', {
        type: 'string',
        defaultDescription: 'MLB_NODE_NAME in /etc/default/mlb, else the host name',
        describe: "This host's node name in the cluster",
      })
      .option('gossip-bind', {
        type: 'string',
        defaultDescription: 'MLB_GOSSIP_BIND in /etc/default/mlb',
        describe: 'IP[:PORT] of this host on the network the hosts share (port 7946 when left out); must be on one of its interfaces',
      })
      .option('join', {
        type: 'string',
        defaultDescription: 'MLB_JOIN in /etc/default/mlb',
        describe: 'IP:PORT,... of the other hosts (empty on the first host)',
      })
      .option('gossip-key-from', {
        type: 'string',
        describe: "A copy of the cluster's gossip key (/etc/mlb/gossip.key of a host already installed), installed 0600",
      })
      .option('first-host', {
        type: 'boolean',
        default: false,
        describe: 'Make a new gossip key when the host has none (then copy it to the others)',
      })
      .option('config', {
        alias: ['c', 'f'],
        type: 'string',
        defaultDescription: 'the installed /etc/mlb/mlb.yaml',
        describe: "The cluster's mlb.yaml, the same on every host; validated before anything is written",
      })
      .option('binary', {
        type: 'string',
        defaultDescription: 'this mlb, when it is the one-file dist/mlb',
        describe: 'The one-file mlb to install as /usr/local/bin/mlb',
      })
      .option('root', {
        type: 'string',
        default: '/',
        describe: 'Install under this directory instead (an image, a test): no groupadd or systemctl, they are printed',
      })
      .option('yes', {
        alias: 'y',
        type: 'boolean',
        default: false,
        describe: 'Ask nothing: take the flags and defaults (also when stdin is not a terminal)',
      })
      .option('start', {
        type: 'boolean',
        default: true,
        describe: 'Enable and start (or restart) mlb.service at the end; --no-start prints the command instead',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Replace a gossip key or an mlb.yaml that differs from the one given (refused otherwise)',
      })
      .option('dry-run', { type: 'boolean', default: false, describe: 'Print what would be done and change nothing' })
      .example(
        'sudo dist/mlb install --first-host --config mlb.yaml --gossip-bind 192.168.10.11 --join 192.168.10.12:7946,192.168.10.13:7946',
        'the first host: makes the gossip key',
      )
      .example(
        'sudo ./mlb install --config mlb.yaml --gossip-key-from gossip.key --gossip-bind 192.168.10.12 --join 192.168.10.11:7946',
        "another host, with a copy of the first one's key",
      )
      .epilogue(
        'Idempotent: a second run with the same inputs changes nothing and says so. A gossip key or configuration that ' +
          'differs from the installed one is refused with a summary of the difference unless --force. Exit 0 when ' +
          'installed and valid, 1 when refused (every reason listed, nothing changed) or when a step failed.',
      ),
  handler: async (args) => {
    if (args['gossip-key-from'] !== undefined && args['first-host']) {
      throw new UsageError('--first-host makes a new gossip key and --gossip-key-from copies one: give one of them');
    }
    await runInstall({
      root: args.root,
      nodeName: args['node-name'],
      gossipBind: args['gossip-bind'],
      join: args.join,
      gossipKeyFrom: args['gossip-key-from'],
      firstHost: args['first-host'],
      config: args.config,
      binary: args.binary,
      force: args.force,
      start: args.start,
      yes: args.yes,
      dryRun: args['dry-run'],
    });
  },
};
