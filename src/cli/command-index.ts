/**
 * Every command's name and one-line description, and how to load the rest of it: `mlb --help`, a usage error and
 * a command's own run load only what they use. Each command module imports what its handler needs (the model,
 * yaml, the allocator, pino, sockets, ...); loading all of them is most of a start of mlb, and `mlb --help` lists
 * only names and descriptions. Each `import()` becomes its own file beside dist/mlb.mjs (scripts/build.mjs
 * splits the bundle there).
 *
 * `command` and `describe` repeat the modules' own: test/cli/command-index.test.ts holds them equal.
 */
import type { CommandModule } from 'yargs';

/** Each command has its own argument type, hence any. */
export type AnyCommand = CommandModule<any, any>;

export interface CommandEntry {
  /** As the module's `command`: the first word is the command's name. */
  readonly command: string;
  readonly describe: string;
  /** The whole command: its options, examples and handler. */
  readonly load: () => Promise<AnyCommand>;
}

/** In the order --help lists them. `man` is main.ts's own (it needs every other command: manCommand). */
export const COMMAND_ENTRIES: readonly CommandEntry[] = [
  {
    command: 'daemon',
    describe:
      'Run the speaker on this host: configuration file, gossip membership, health checks, election, ARP/NDP answers for the IPs this node owns',
    load: async () => (await import('./commands/daemon')).daemonCommand,
  },
  {
    command: 'controller',
    describe: "Run MetalLB's controller in a Kubernetes cluster: allocate LoadBalancer Service IPs from IPAddressPools",
    load: async () => (await import('./commands/controller')).controllerCommand,
  },
  {
    command: 'validate [file]',
    describe: 'Check a configuration file and show the IP each service would get',
    load: async () => (await import('./commands/validate')).validateCommand,
  },
  {
    command: 'explain [targets..]',
    describe: "Show who announces each service IP, and every other node's reason",
    load: async () => (await import('./commands/explain')).explainCommand,
  },
  {
    command: 'arping <ip>',
    describe: 'Ask who answers ARP (or IPv6 Neighbor Solicitation) for an IP; exit 3 if several MACs do',
    load: async () => (await import('./commands/arping')).arpingCommand,
  },
  {
    command: 'status',
    describe: 'Show who owns each service IP, the members and their state, from the running daemon (live in a terminal)',
    load: async () => (await import('./commands/status')).statusCommand,
  },
  {
    command: 'drain [node]',
    describe: "Move a host's service IPs to other nodes and keep it out of elections (maintenance): this host, or NODE from here",
    load: async () => (await import('./commands/drain')).drainCommand,
  },
  {
    command: 'undrain [node]',
    describe: 'Let a host be elected again after mlb drain: this host, or NODE from here',
    load: async () => (await import('./commands/drain')).undrainCommand,
  },
  {
    command: 'warmup <action>',
    describe: "End this host's warm-up after restarts now (after planned maintenance)",
    load: async () => (await import('./commands/warmup')).warmupCommand,
  },
  {
    command: 'lab',
    describe: 'A lab of network namespaces on this machine: N nodes running mlb daemon and a client (needs root)',
    load: async () => (await import('./commands/lab')).labCommand,
  },
  {
    command: 'version',
    describe: 'Print the version and the git commit this binary was built from',
    load: async () => (await import('./commands/version')).versionCommand,
  },
  {
    command: 'check',
    describe: 'Monitoring-plugin check of the running daemon: exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN, one line of why',
    load: async () => (await import('./commands/check')).checkCommand,
  },
  {
    command: 'install',
    describe:
      'Install mlb on this host: binary, /etc/mlb files, /etc/default/mlb, group mlb and the systemd unit; then start it, validate and show the status',
    load: async () => (await import('./commands/install')).installCommand,
  },
  {
    command: 'completion <shell>',
    describe: 'Print the bash or zsh completion script for mlb',
    load: async () => (await import('./commands/completion')).completionCommand,
  },
];

export const commandName = (command: string): string => command.split(' ')[0] ?? '';

/** yargs' completion protocol (docs/completion-scripts.ts): it walks every command's options. */
const COMPLETION_FLAG = '--get-yargs-completions';

/**
 * Which commands a command line needs whole: those it names (any word, not only the first: a flag's value may
 * come before the command's name, and loading one command too many is only slower), or all of them when the
 * answer depends on every command (the man page, completions). `mlb --help` and `mlb` alone need none.
 */
export function commandsToLoad(argv: readonly string[], needEvery: ReadonlySet<string>): ReadonlySet<string> | 'all' {
  if (argv.includes(COMPLETION_FLAG)) return 'all';
  const words = new Set(argv.filter((a) => !a.startsWith('-')));
  for (const word of words) if (needEvery.has(word)) return 'all';
  return words;
}

/**
 * A command as --help lists it, standing in for one the command line does not run. Its handler is never called:
 * yargs only runs the command named, and that one is loaded whole (commandsToLoad).
 */
function listedOnly(entry: CommandEntry): AnyCommand {
  return {
    command: entry.command,
    describe: entry.describe,
    handler: () => {
      throw new Error(`mlb: the command "${commandName(entry.command)}" ran without being loaded`);
    },
  };
}

/** The commands to give yargs, in COMMAND_ENTRIES' order: whole where the command line needs them, listed only otherwise. */
export async function commandModules(entries: readonly CommandEntry[], load: ReadonlySet<string> | 'all'): Promise<AnyCommand[]> {
  return Promise.all(entries.map((e) => (load === 'all' || load.has(commandName(e.command)) ? e.load() : Promise.resolve(listedOnly(e)))));
}
