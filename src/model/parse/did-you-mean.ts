/**
 * "did you mean" suggestions for misspelt field names, kinds and references. A typo such as "autoAsign" is
 * the commonest configuration mistake and MetalLB (through the API server's pruning) drops such a field
 * silently; mlb names the field the user probably meant.
 */

/** Suggestions further than this many edits away are more confusing than helpful. */
const MAX_SUGGESTION_DISTANCE = 3;

/** Levenshtein distance with case differences costing nothing ("autoassign" is one typo from "autoAssign"). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const substitution = (previous[j - 1] as number) + (s[i - 1] === t[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[t.length] as number;
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
