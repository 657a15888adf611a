/**
 * Words people type from other tools' habits (kubectl above all: get, describe, logs, apply...) that are no mlb
 * command. A suggestion by spelling would be wrong for them ("get" is three edits from "lab", as from anything
 * short), so each gets an answer that says where the thing it asks for lives in mlb. Pure data and a look-up.
 */

/** What `mlb WORD` answers for a habit word: the sentences after '"WORD" is not an mlb command: '. */
const HABIT_ANSWERS: Readonly<Record<string, string>> = {
  get: '`mlb status --once` lists the services and their owners; `mlb validate FILE` shows what a file would allocate',
  list: '`mlb status --once` lists the services, their IPs and owners, and the members; `mlb validate FILE` shows what a file would allocate',
  ls: '`mlb status --once` lists the services, their IPs and owners, and the members',
  show: '`mlb status --once` shows the services and members; `mlb explain IP|NAMESPACE/NAME` shows why a node owns an IP',
  ps: '`mlb status --once` shows the members (the daemons) and their state',
  top: '`mlb status` is the live view; `mlb status --watch` prints a line per event',
  describe: '`mlb explain IP|NAMESPACE/NAME` describes who announces a service IP and why every other node does not',
  logs: 'the daemon logs to its stdout (`journalctl -u mlb` under systemd); `mlb status --watch` prints its events as they happen',
  apply:
    'edit the configuration file the daemon was started with (`mlb daemon --config FILE`): every daemon reloads it; check it first with `mlb validate FILE`',
  edit: 'edit the configuration file the daemon was started with (`mlb daemon --config FILE`) in any editor: the daemon reloads it; check it with `mlb validate FILE`',
};

/** The answer to a habit word, or undefined when `word` is not one. */
export function habitAnswer(word: string): string | undefined {
  const answer = Object.hasOwn(HABIT_ANSWERS, word) ? HABIT_ANSWERS[word] : undefined;
  return answer === undefined ? undefined : `"${word}" is not an mlb command: ${answer}`;
}
