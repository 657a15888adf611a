/**
 * `mlb man`: the manual page (roff, man(7) macros) built from the same command definitions as --help. Read it with
 * `mlb man | man -l -`; install it with `mlb man | sudo tee /usr/local/share/man/man1/mlb.1`. `npm run build`
 * writes it to dist/mlb.1 as well.
 */
import type { CommandModule } from 'yargs';
import { buildInfo } from '../build-info';
import { outlineCommands } from '../docs/command-outline';
import { manPage } from '../docs/man-page';

/** What main.ts knows and this file cannot import (main runs the CLI when imported): read when the command runs. */
export interface ProgramDefinitions {
  readonly commands: readonly CommandModule<any, any>[];
  readonly usage: string;
  readonly epilogue: string;
}

export function manCommand(program: () => ProgramDefinitions): CommandModule<object, object> {
  return {
    command: 'man',
    describe: "Print mlb's manual page (roff): every command, option, example and exit code",
    builder: (y) =>
      y
        .example('mlb man | man -l -', 'read it')
        .example('mlb man | sudo tee /usr/local/share/man/man1/mlb.1 >/dev/null', 'install it for `man mlb`'),
    handler: () => {
      const p = program();
      process.stdout.write(
        manPage({ version: buildInfo().version, usage: p.usage, epilogue: p.epilogue, commands: outlineCommands(p.commands) }),
      );
    },
  };
}
