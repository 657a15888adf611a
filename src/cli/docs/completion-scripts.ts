/**
 * The shell completion scripts `mlb completion` prints. Both ask mlb itself for the candidates, through yargs'
 * completion protocol (`mlb --get-yargs-completions WORD...` prints one candidate a line for the words up to the
 * cursor), so they always match the installed mlb's commands and options: nothing here lists them.
 * yargs picks the candidates' form from $SHELL (bare words, or "word:description" for zsh); each script sets SHELL
 * for that one call, because a user's login shell need not be the shell that is completing.
 */

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

const BASH = `# bash completion for mlb.
# For every user:  mlb completion bash | sudo tee /etc/bash_completion.d/mlb >/dev/null
# For yourself:    echo 'source <(mlb completion bash)' >> ~/.bashrc
_mlb_completions() {
  local IFS=$'\\n' candidates
  candidates=$(SHELL=bash mlb --get-yargs-completions "\${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null) || return 0
  COMPREPLY=($(compgen -W "$candidates" -- "\${COMP_WORDS[COMP_CWORD]}"))
}
# -o default: with no candidate (a file name after --config), complete file names.
complete -o default -F _mlb_completions mlb
`;

const ZSH = `#compdef mlb
# zsh completion for mlb.
# For every user:  mlb completion zsh | sudo tee /usr/local/share/zsh/site-functions/_mlb >/dev/null
# For yourself:    echo 'source <(mlb completion zsh)' >> ~/.zshrc   (after compinit)
_mlb() {
  local -a candidates
  candidates=(\${(f)"$(SHELL=zsh mlb --get-yargs-completions "\${(@)words[1,CURRENT]}" 2>/dev/null)"})
  if (( \${#candidates} )); then
    _describe 'mlb' candidates
  else
    _files
  fi
}
# Loaded from fpath, the file is the function's body; sourced, it registers it.
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _mlb "$@"
else
  compdef _mlb mlb
fi
`;

export function completionScript(shell: CompletionShell): string {
  return shell === 'bash' ? BASH : ZSH;
}
