import { describe, expect, it } from 'vitest';
import {
  formatProbeLine,
  latestAnswer,
  measureFailover,
  parseProbeLine,
  steadyOwner,
  type ProbeSample,
} from '../../src/cli/lab/probe-samples';

/** A client probing every 20 ms: answers from `node` for t in [from, to), one sample per step. */
function answers(node: string, from: number, to: number): ProbeSample[] {
  const out: ProbeSample[] = [];
  for (let t = from; t < to; t += 20) out.push({ t, sent: t - 2, ok: true, node });
  return out;
}

function failures(from: number, to: number, error = 'timeout'): ProbeSample[] {
  const out: ProbeSample[] = [];
  for (let t = from; t < to; t += 20) out.push({ t, sent: t - 300, ok: false, error });
  return out;
}

describe('measureFailover: the gap the client felt', () => {
  it("measures from the old owner's last answer to the new owner's first, counting the failed requests between", () => {
    // node-2 answers until 1000, dies at 1010; nothing answers until node-3 at 2240.
    const samples = [...answers('node-2', 0, 1000), ...failures(1000, 2240), ...answers('node-3', 2240, 3000)];
    const f = measureFailover(samples, 'node-2', 1010);
    expect(f).toMatchObject({ from: 'node-2', to: 'node-3', lastOldAnswer: 980, firstNewAnswer: 2240, gapMs: 1260, oldAnswersAfter: 0 });
    expect(f?.failedRequests).toBe(62);
  });

  it('is undefined while only the old owner answers or nothing does', () => {
    const samples = [...answers('node-2', 0, 1000), ...failures(1000, 1500)];
    expect(measureFailover(samples, 'node-2', 1010)).toBeUndefined();
  });

  it('ignores answers from other nodes before the act (an earlier move is not this one)', () => {
    const samples = [...answers('node-1', 0, 400), ...answers('node-2', 400, 1000), ...answers('node-3', 1100, 1200)];
    expect(measureFailover(samples, 'node-2', 1000)?.firstNewAnswer).toBe(1100);
  });

  it('reports a move without a lost request, and the old owner answering after the new one (two owners)', () => {
    const samples = [
      ...answers('node-1', 0, 500),
      ...answers('node-2', 500, 560),
      { t: 570, sent: 568, ok: true, node: 'node-1' },
      ...answers('node-2', 580, 700),
    ];
    const f = measureFailover(samples, 'node-1', 100);
    expect(f).toMatchObject({ to: 'node-2', gapMs: 20, failedRequests: 0, oldAnswersAfter: 1 });
  });

  it('works on samples in arrival order, not sorted (answers arrive out of order)', () => {
    const samples = [...answers('node-3', 2240, 2300), ...failures(1000, 1100), ...answers('node-2', 0, 1000)];
    expect(measureFailover(samples, 'node-2', 1000)?.gapMs).toBe(1260);
  });
});

describe('steadyOwner and latestAnswer', () => {
  it('names the node that answered every request of the window', () => {
    expect(steadyOwner(answers('node-1', 0, 2000), 2000, 1000)).toBe('node-1');
  });

  it('says nothing while the answers are mixed, failing or too few', () => {
    expect(steadyOwner([...answers('node-1', 0, 1500), ...answers('node-2', 1500, 2000)], 2000, 1000)).toBeUndefined();
    expect(steadyOwner([...answers('node-1', 0, 1900), ...failures(1900, 2000)], 2000, 1000)).toBeUndefined();
    // Watching for only the last 50 ms of the window: too early to call it steady.
    expect(steadyOwner(answers('node-1', 1950, 2000), 2000, 1000)).toBeUndefined();
    // Covered, but only two answers in the window (the probe stalled).
    expect(steadyOwner([...answers('node-1', 0, 20), ...answers('node-1', 1960, 2000)], 2000, 1000)).toBeUndefined();
  });

  it('latestAnswer skips failures and answers before `since`', () => {
    const samples = [...answers('node-1', 0, 100), ...failures(100, 200)];
    expect(latestAnswer(samples)?.t).toBe(80);
    expect(latestAnswer(samples, 90)).toBeUndefined();
  });
});

describe('probe lines', () => {
  it('round-trips a sample through its JSON line', () => {
    const ok: ProbeSample = { t: 1795947713807, sent: 1795947713753, ok: true, node: 'node-1' };
    const bad: ProbeSample = { t: 5, sent: 1, ok: false, error: 'refused' };
    expect(parseProbeLine(formatProbeLine(ok))).toEqual(ok);
    expect(parseProbeLine(formatProbeLine(bad))).toEqual(bad);
  });

  it('drops lines that are not samples instead of throwing', () => {
    for (const line of ['', '{', 'null', '[]', '{"t":"1","sent":1,"ok":true}', '{"t":1,"sent":1}', 'Warning: something']) {
      expect(parseProbeLine(line), line).toBeUndefined();
    }
  });
});
