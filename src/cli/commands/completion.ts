/** `mlb completion bash|zsh`: the shell completion script, to source or install (docs/completion-scripts.ts). */
import type { CommandModule } from 'yargs';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from '../docs/completion-scripts';

interface CompletionArgs {
  shell: CompletionShell;
}

export const completionCommand: CommandModule<object, CompletionArgs> = {
  command: 'completion <shell>',
  describe: 'Print the bash or zsh completion script for mlb',
  builder: (y) =>
    y
      .positional('shell', { choices: COMPLETION_SHELLS, demandOption: true, describe: 'The shell to complete in' })
      .example("echo 'source <(mlb completion bash)' >> ~/.bashrc", "complete mlb's commands and options in your bash")
      .example('mlb completion bash | sudo tee /etc/bash_completion.d/mlb >/dev/null', 'for every user of this host')
      .example('mlb completion zsh | sudo tee /usr/local/share/zsh/site-functions/_mlb >/dev/null', 'zsh, for every user'),
  handler: (args) => {
    process.stdout.write(completionScript(args.shell));
  },
};
