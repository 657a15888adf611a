/**
 * A short account of how two versions of a text file differ, for a refusal to overwrite one: how many lines only
 * each side has, and the first line where they part. Not a full diff: enough to see whether the difference is
 * the intended one before re-running with --force. Pure.
 */

/** How much of a differing line is shown: a refusal must stay a few lines long. */
const SHOWN_LINE_CHARS = 72;

function countLines(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

/** Lines of `a` not matched by an equal line of `b` (as multisets: order ignored). */
function linesOnlyIn(a: readonly string[], b: readonly string[]): number {
  const left = countLines(b);
  let only = 0;
  for (const line of a) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else only++;
  }
  return only;
}

function shown(line: string | undefined): string {
  if (line === undefined) return '(end of file)';
  return line.length > SHOWN_LINE_CHARS ? `${line.slice(0, SHOWN_LINE_CHARS)}…` : line;
}

export function differenceSummary(installed: string, wanted: string): string {
  const a = installed.split('\n');
  const b = wanted.split('\n');
  const first = a.findIndex((line, i) => line !== b[i]);
  const at = first < 0 ? a.length : first;
  return (
    `${linesOnlyIn(a, b)} line(s) only in the installed file, ${linesOnlyIn(b, a)} only in the new one; ` +
    `first difference at line ${at + 1}: installed "${shown(a[at])}", new "${shown(b[at])}"`
  );
}

/** True when a YAML file holds nothing but comments and blank lines (the Debian package's placeholder). */
export function onlyComments(text: string): boolean {
  return text.split('\n').every((line) => /^\s*(#.*)?$/.test(line) || /^\s*---\s*$/.test(line));
}
