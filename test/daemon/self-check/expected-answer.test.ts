/**
 * Which other MACs may answer an IP this node owns, and for how long (src/daemon/self-check/expected-answer.ts),
 * pure: a planned move (the previous owner handing over, a draining or leaving node, a node ranked ahead of us
 * whose state changed before we heard, a member that just joined) is expected for a bounded window; the same
 * answer after the window, a MAC no member publishes, or a member without a reason is a real conflict.
 */
import { describe, expect, it } from 'vitest';
import { HANDOVER_TIMEOUT_MS } from '../../../src/daemon/handover';
import { REJOIN_INTERVAL_MS } from '../../../src/daemon/cluster-membership';
import { EXPECTED_ANSWER_WINDOW_MS, judgeAnswer, NO_FACTS, type AnswerFacts } from '../../../src/daemon/self-check/expected-answer';

const T0 = Date.parse('2026-10-04T08:00:00Z');
const W = EXPECTED_ANSWER_WINDOW_MS;
const facts = (f: Partial<AnswerFacts>): AnswerFacts => ({ ...NO_FACTS, member: 'node-b', ...f });

describe('expected answers', () => {
  it("the window outlasts a leaving node's handover and a returning node's next rejoin", () => {
    expect(W).toBeGreaterThan(HANDOVER_TIMEOUT_MS);
    expect(W).toBeGreaterThan(REJOIN_INTERVAL_MS);
  });

  it('the previous owner answering after we took the IP is a handover until the window ends, then a conflict', () => {
    const f = facts({ takeover: { from: ['node-b'], at: T0 } });
    expect(judgeAnswer(f, T0 + 1000, T0 + 1000)).toEqual({ expected: true, reason: 'expectedHandover', until: T0 + W });
    expect(judgeAnswer(f, T0 + 1000, T0 + W - 1)).toMatchObject({ expected: true, reason: 'expectedHandover' });
    expect(judgeAnswer(f, T0 + 1000, T0 + W)).toEqual({ expected: false, reason: 'windowOver', after: 'expectedHandover' });
    // The window runs from the takeover, not from when we first heard it: a late first answer is no fresh start.
    expect(judgeAnswer(f, T0 + W + 5000, T0 + W + 5000)).toMatchObject({ expected: false, reason: 'windowOver' });
  });

  it("a node that did not hold the IP gets nothing from someone else's takeover", () => {
    const f = facts({ member: 'node-c', takeover: { from: ['node-b'], at: T0 } });
    expect(judgeAnswer(f, T0 + 1000, T0 + 1000)).toEqual({ expected: false, reason: 'noReason' });
  });

  it('a draining or leaving node answers while it hands over, for a window from its first answer', () => {
    const f = facts({ memberDraining: true });
    expect(judgeAnswer(f, T0, T0)).toEqual({ expected: true, reason: 'expectedLeaving', until: T0 + W });
    expect(judgeAnswer(f, T0, T0 + W / 2)).toMatchObject({ expected: true, reason: 'expectedLeaving' });
    expect(judgeAnswer(f, T0, T0 + W + 1)).toEqual({ expected: false, reason: 'windowOver', after: 'expectedLeaving' });
  });

  it('a node ranked ahead of us (its undrain or warm-up may have ended before we heard) is our successor for a window', () => {
    const f = facts({ rankedAhead: ['node-b'] });
    expect(judgeAnswer(f, T0, T0 + 500)).toEqual({ expected: true, reason: 'expectedSuccessor', until: T0 + W });
    expect(judgeAnswer(f, T0, T0 + W)).toEqual({ expected: false, reason: 'windowOver', after: 'expectedSuccessor' });
    // Ranked behind us, alive, not draining, not the previous owner: no reason at all.
    expect(judgeAnswer(facts({ rankedAhead: ['node-c'] }), T0, T0)).toEqual({ expected: false, reason: 'noReason' });
  });

  it('a member that just joined or changed may not have heard the cluster yet: expected from its change for a window', () => {
    const f = facts({ memberChangedAt: T0 });
    expect(judgeAnswer(f, T0 + 800, T0 + 800)).toEqual({ expected: true, reason: 'expectedConverging', until: T0 + W });
    expect(judgeAnswer(f, T0 + 800, T0 + W + 800)).toEqual({ expected: false, reason: 'windowOver', after: 'expectedConverging' });
  });

  it('a member gossip holds dead or gone answering is coming back (layer 2 healed before its rejoin): expected from its first answer for a window', () => {
    const f = facts({ memberAway: true });
    expect(judgeAnswer(f, T0, T0)).toEqual({ expected: true, reason: 'expectedConverging', until: T0 + W });
    // Still answering with gossip still cut (a split brain): a conflict once the window is over.
    expect(judgeAnswer(f, T0, T0 + W)).toEqual({ expected: false, reason: 'windowOver', after: 'expectedConverging' });
  });

  it('the latest of several windows decides', () => {
    const f = facts({ takeover: { from: ['node-b'], at: T0 }, rankedAhead: ['node-b'] });
    expect(judgeAnswer(f, T0 + 3000, T0 + W + 1000)).toEqual({ expected: true, reason: 'expectedSuccessor', until: T0 + 3000 + W });
  });

  it('a MAC no member publishes is a conflict at once, whatever else is known', () => {
    const f: AnswerFacts = { ...NO_FACTS, takeover: { from: ['node-b'], at: T0 }, memberDraining: true, rankedAhead: ['node-b'] };
    expect(judgeAnswer(f, T0, T0)).toEqual({ expected: false, reason: 'notMember' });
  });
});

describe('expected answers on the node letting go', () => {
  it("the node our own election now gives the IP to is expected while we still answer (a leaving node's handover)", () => {
    const f = facts({ electedOwner: 'node-b' });
    expect(judgeAnswer(f, T0, T0 + 60_000)).toEqual({ expected: true, reason: 'expectedNewOwner', until: T0 + 60_000 + W });
    expect(judgeAnswer(facts({ electedOwner: 'node-c' }), T0, T0)).toEqual({ expected: false, reason: 'noReason' });
  });
});
