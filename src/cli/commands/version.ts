import type { CommandModule } from 'yargs';
import { buildInfo, versionLine } from '../build-info';

interface VersionArgs {
  json: boolean;
}

export const versionCommand: CommandModule<object, VersionArgs> = {
  command: 'version',
  describe: 'Print the version and the git commit this binary was built from',
  builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'Print {"version","commit","node"} as JSON' }),
  handler: (args) => {
    const info = { ...buildInfo(), node: process.version };
    if (args.json) process.stdout.write(`${JSON.stringify(info)}\n`);
    else process.stdout.write(versionLine(info, info.node));
  },
};
