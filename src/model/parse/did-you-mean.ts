/**
 * "did you mean" suggestions for misspelt field names, kinds and references. A typo such as "autoAsign" is
 * the commonest configuration mistake and MetalLB (through the API server's pruning) drops such a field
 * silently; mlb names the field the user probably meant.
 */

/** Suggestions further than this many edits away are more confusing than helpful. */
const MAX_SUGGESTION_DISTANCE = 3;

/**
 * Edit distance counting insertions, deletions, substitutions and swaps of neighbours as one edit each
 * (optimal string alignment), case-insensitively: "nmae" is one typo from "name", "autoassign" none from
 * "autoAssign".
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => (d[i] as number[])[j] as number;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(s.length, t.length);
}

/** The closest candidate within reach (ties: the first in candidate order), or undefined. */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  // Short words allow fewer edits, or "vrf" would suggest "ttl".
  const limit = Math.min(MAX_SUGGESTION_DISTANCE, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const d = editDistance(word, candidate);
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ' (did you mean "x"?)' or ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closestMatch(word, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
