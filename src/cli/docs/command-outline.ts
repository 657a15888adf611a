/**
 * What a command declares about itself (its options, positionals, examples, epilogue, subcommands), read by running
 * its yargs builder against a recorder instead of yargs: the man page and the help's examples come from the very
 * calls `--help` is built from, so they cannot drift apart. The recorder answers every other builder call (conflicts,
 * demandCommand, check...) by returning itself.
 */
import type { CommandModule } from 'yargs';

export interface OptionOutline {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly describe: string;
  /** "string", "boolean", "number", "array", or the choices joined with |. */
  readonly type: string;
  /** The default as --help shows it; absent when there is none. */
  readonly defaultText?: string;
  readonly required: boolean;
}

export interface ExampleOutline {
  readonly command: string;
  readonly describe: string;
}

export interface CommandOutline {
  /** The words that run it: ["lab", "up"]. */
  readonly path: readonly string[];
  /** The yargs command text after the name: "[targets..]". */
  readonly usageTail: string;
  readonly describe: string;
  readonly positionals: readonly OptionOutline[];
  readonly options: readonly OptionOutline[];
  readonly examples: readonly ExampleOutline[];
  readonly epilogue: string;
  readonly subcommands: readonly CommandOutline[];
}

interface OptionSpec {
  alias?: string | readonly string[];
  describe?: string;
  description?: string;
  type?: string;
  choices?: readonly unknown[];
  default?: unknown;
  defaultDescription?: string;
  demandOption?: boolean | string;
  hidden?: boolean;
  array?: boolean;
}

/** The outline of every visible command (describe: false hides one from --help, and from here). */
export function outlineCommands(commands: readonly CommandModule<any, any>[], parent: readonly string[] = []): CommandOutline[] {
  return commands.filter((c) => c.describe !== false).map((c) => outlineCommand(c, parent));
}

function outlineCommand(module: CommandModule<any, any>, parent: readonly string[]): CommandOutline {
  const [name = '', ...rest] = String(Array.isArray(module.command) ? module.command[0] : module.command).split(' ');
  const path = [...parent, name];
  const recorded = {
    positionals: [] as OptionOutline[],
    options: [] as OptionOutline[],
    examples: [] as ExampleOutline[],
    epilogues: [] as string[],
    subcommands: [] as CommandModule<any, any>[],
  };
  const recorder: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_target, method: string | symbol) => {
        switch (method) {
          case 'option':
          case 'positional':
            return (key: string, spec: OptionSpec = {}) => {
              if (!spec.hidden) (method === 'option' ? recorded.options : recorded.positionals).push(optionOutline(key, spec));
              return recorder;
            };
          case 'example':
            return (command: string, describe = '') => {
              recorded.examples.push({ command, describe });
              return recorder;
            };
          case 'epilogue':
          case 'epilog':
            return (text: string) => {
              recorded.epilogues.push(text);
              return recorder;
            };
          case 'command':
            return (sub: CommandModule<any, any> | readonly CommandModule<any, any>[]) => {
              recorded.subcommands.push(...(Array.isArray(sub) ? sub : [sub as CommandModule<any, any>]));
              return recorder;
            };
          case 'then':
            return undefined; // not a promise
          default:
            return () => recorder;
        }
      },
    },
  );
  if (typeof module.builder === 'function') (module.builder as (y: unknown) => unknown)(recorder);
  return {
    path,
    usageTail: rest.join(' '),
    describe: typeof module.describe === 'string' ? module.describe : '',
    positionals: recorded.positionals,
    options: recorded.options,
    examples: recorded.examples,
    epilogue: recorded.epilogues.join('\n'),
    subcommands: outlineCommands(recorded.subcommands, path),
  };
}

function optionOutline(name: string, spec: OptionSpec): OptionOutline {
  const aliases = spec.alias === undefined ? [] : typeof spec.alias === 'string' ? [spec.alias] : [...spec.alias];
  const type = spec.choices ? spec.choices.map(String).join('|') : spec.array ? 'array' : (spec.type ?? 'string');
  const defaultText = spec.defaultDescription ?? (spec.default === undefined ? undefined : JSON.stringify(spec.default));
  return {
    name,
    aliases,
    describe: spec.describe ?? spec.description ?? '',
    type,
    required: spec.demandOption !== undefined && spec.demandOption !== false,
    ...(defaultText === undefined ? {} : { defaultText }),
  };
}

/** The command `words` (argv._ of a --help) name, its subcommands searched too; undefined when none does. */
export function findCommand(outlines: readonly CommandOutline[], words: readonly string[]): CommandOutline | undefined {
  let found: CommandOutline | undefined;
  let level = outlines;
  for (const word of words) {
    const next = level.find((c) => c.path[c.path.length - 1] === word);
    if (!next) break;
    found = next;
    level = next.subcommands;
  }
  return found;
}
