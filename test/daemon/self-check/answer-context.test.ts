/**
 * What the speaker knows about another MAC answering one of its IPs (src/daemon/self-check/answer-context.ts): a
 * member gossip has reaped (declared dead long enough ago) is still known by its MAC, so its answer when layer 2
 * heals before gossip rejoins it is a member coming back, not "the address is configured on another machine".
 */
import { describe, expect, it } from 'vitest';
import { AnswerContext } from '../../../src/daemon/self-check/answer-context';
import { EXPECTED_ANSWER_WINDOW_MS } from '../../../src/daemon/self-check/expected-answer';
import { encodeNodeMeta } from '../../../src/gossip/node-meta';
import type { Member } from '../../../src/gossip/swim';
import type { ElectionOutcome } from '../../../src/election';
import { parseIP, type IP } from '../../../src/ip';

const VIP = parseIP('192.0.2.10') as IP;
const T0 = Date.parse('2026-10-04T08:00:00Z');

function member(name: string, mac: string, state: Member['state'] = 'alive'): Member {
  return {
    name,
    addr: Uint8Array.of(192, 0, 2, 1),
    port: 7946,
    incarnation: 1,
    state,
    stateChange: T0,
    vsn: new Uint8Array(6),
    meta: encodeNodeMeta({ labels: {}, conditions: [], draining: false, warmingUp: false, macs: [mac] }),
  };
}

describe('answer facts for a member that comes back', () => {
  it('names a reaped member by its MAC and says it is away', () => {
    const context = new AnswerContext('node-a');
    const a = member('node-a', '02:00:00:00:00:01');
    const b = member('node-b', '02:00:00:00:00:02');
    context.elected([], [a, b], T0);
    context.elected([], [a, { ...b, state: 'dead' }], T0 + 1000);
    expect(context.facts(VIP, '02:00:00:00:00:02', [a, { ...b, state: 'dead' }], [])).toMatchObject({ member: 'node-b', memberAway: true });
    // Reaped: gossip lists it no more, but its MAC is still its.
    context.elected([], [a], T0 + 20_000);
    expect(context.macOwners.get('02:00:00:00:00:02')).toBe('node-b');
    expect(context.facts(VIP, '02:00:00:00:00:02', [a], [])).toMatchObject({ member: 'node-b', memberAway: true });
    // Back and alive: present, not away.
    context.elected([], [a, b], T0 + 30_000);
    expect(context.facts(VIP, '02:00:00:00:00:02', [a, b], [])).toMatchObject({ member: 'node-b', memberAway: false });
  });
});

describe('answer facts during a handover of thousands of IPs', () => {
  it('names the elected owner of each IP, reading the election once, not once per answer', () => {
    const context = new AnswerContext('node-a');
    const a = member('node-a', '02:00:00:00:00:01');
    const b = member('node-b', '02:00:00:00:00:02');
    context.elected([], [a, b], T0);
    const outcomes: ElectionOutcome[] = Array.from({ length: 2000 }, (_, i) => ({
      service: `demo/svc-${i}`,
      protocol: 'layer2',
      ips: [`10.1.${i >> 8}.${i & 255}`],
      winner: i % 2 === 0 ? 'node-b' : 'node-a',
      announcing: [i % 2 === 0 ? 'node-b' : 'node-a'],
    }));
    let reads = 0;
    const counted = new Proxy(outcomes, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    for (let i = 0; i < 2000; i += 10) {
      const facts = context.facts(parseIP(`10.1.${i >> 8}.${i & 255}`) as IP, '02:00:00:00:00:02', [a, b], counted);
      expect(facts.electedOwner).toBe('node-b');
    }
    expect(context.facts(parseIP('10.1.0.1') as IP, '02:00:00:00:00:02', [a, b], counted).electedOwner).toBeUndefined();
    // Once through the outcomes (a search per answer would read about 200 x 1,000 of them).
    expect(reads).toBeLessThanOrEqual(outcomes.length);
  });
});

describe('answer facts for a member that joined while a decision was computed', () => {
  it('knows the joiner by its MAC and keeps its join as the reason, though the decision applied after it never saw it', () => {
    const context = new AnswerContext('node-a');
    const a = member('node-a', '02:00:00:00:00:01');
    const b = member('node-b', '02:00:00:00:00:02');
    // The decision reads its members ([a]), node-b joins during its turns, the decision is applied after.
    context.memberChanged('node-b', T0 + 100);
    context.elected([], [a], T0 + 200);
    const facts = context.facts(VIP, '02:00:00:00:00:02', [a, b], []);
    expect(facts).toMatchObject({ member: 'node-b', memberChangedAt: T0 + 100 });
    // Its join stops being a reason only once the window it gives is over.
    context.elected([], [a, b], T0 + 100 + EXPECTED_ANSWER_WINDOW_MS + 1);
    expect(context.facts(VIP, '02:00:00:00:00:02', [a, b], []).memberChangedAt).toBeUndefined();
  });
});
