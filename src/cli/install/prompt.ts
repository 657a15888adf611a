/**
 * Questions for the values `mlb install` was not given, asked only when a person is at a terminal (stdin and
 * stdout are TTYs) and --yes was not given: a script never waits on a prompt it cannot see.
 */
import { createInterface } from 'node:readline/promises';

export type Ask = (question: string, suggested: string) => Promise<string>;

export function canPrompt(yes: boolean): boolean {
  return !yes && process.stdin.isTTY === true && process.stdout.isTTY === true;
}

/** Asks one question at a time; Enter takes the suggestion shown in brackets. */
export function terminalAsk(): { ask: Ask; close: () => void } {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  return {
    ask: async (question, suggested) => {
      const answer = (await rl.question(suggested === '' ? `${question}: ` : `${question} [${suggested}]: `)).trim();
      return answer === '' ? suggested : answer;
    },
    close: () => rl.close(),
  };
}
