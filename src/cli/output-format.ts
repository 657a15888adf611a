/**
 * -o json|yaml|wide, kubectl's habit, beside the older --json: which form a command prints. Pure; printing the
 * chosen form is structured-output.ts's (it loads yaml, which a command printing text never needs).
 */
import type { Options } from 'yargs';
import { UsageError } from './exit-codes';

export const OUTPUT_FORMATS = ['json', 'yaml', 'wide'] as const;
/** text: the command's default, for people. */
export type OutputFormat = 'text' | (typeof OUTPUT_FORMATS)[number];

/** The -o option; `wide` says what it adds for the command that declares it. */
export function outputOption(wide: string) {
  return {
    alias: 'o',
    choices: OUTPUT_FORMATS,
    describe: `Output form: json (as --json), yaml (the same fields as YAML), wide (${wide})`,
  } as const satisfies Options;
}

/** The format asked for; --json with -o other than json is a contradiction, not a choice to make silently. */
export function outputFormat(args: { readonly json?: boolean; readonly output?: unknown }): OutputFormat {
  const output = args.output;
  if (Array.isArray(output)) throw new UsageError(`-o was given ${output.length} times (${output.join(', ')}): name one form`);
  if (output !== undefined && !(OUTPUT_FORMATS as readonly unknown[]).includes(output)) {
    throw new UsageError(`-o ${String(output)}: choose one of ${OUTPUT_FORMATS.join(', ')}`);
  }
  if (args.json === true && output !== undefined && output !== 'json') {
    throw new UsageError(`--json and -o ${String(output)} ask for two forms: use one`);
  }
  if (args.json === true) return 'json';
  return (output as OutputFormat | undefined) ?? 'text';
}

/** True when the format is a data form (json or yaml) rather than text for people. */
export function isStructured(format: OutputFormat): format is 'json' | 'yaml' {
  return format === 'json' || format === 'yaml';
}
