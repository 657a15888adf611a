import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIP, parseIP, type IP } from '../../../src/ip';
import { formatBoundAddress, planVipBinding, type BoundAddress } from '../../../src/announce/addr/vip-plan';

const ip = (text: string): IP => parseIP(text)!;
const at = (text: string): BoundAddress => {
  const [address, prefix] = text.split('/') as [string, string];
  return { ip: ip(address), prefix: Number(prefix) };
};
const summary = (plan: ReturnType<typeof planVipBinding>) => ({
  add: plan.add.map(formatIP),
  remove: plan.remove.map(formatBoundAddress),
  decisions: plan.decisions.map((d) => `${d.action} ${formatBoundAddress(d)} ${d.reason}`),
});

describe('planVipBinding', () => {
  it('adds owned VIPs as /32 and /128', () => {
    expect(summary(planVipBinding([], [ip('fd00::5'), ip('10.0.0.5')]))).toEqual({
      add: ['10.0.0.5', 'fd00::5'],
      remove: [],
      decisions: ['add 10.0.0.5/32 desiredNotBound', 'add fd00::5/128 desiredNotBound'],
    });
  });

  it('does nothing when mlb0 already holds exactly the owned VIPs', () => {
    const plan = planVipBinding([at('10.0.0.5/32'), at('fd00::5/128')], [ip('10.0.0.5'), ip('fd00::5')]);
    expect(summary(plan)).toEqual({ add: [], remove: [], decisions: ['keep 10.0.0.5/32 alreadyBound', 'keep fd00::5/128 alreadyBound'] });
  });

  it('removes a withdrawn VIP and, with nothing owned, every address (the stale ones of a crashed run)', () => {
    expect(summary(planVipBinding([at('10.0.0.5/32'), at('10.0.0.6/32')], [ip('10.0.0.6')])).remove).toEqual(['10.0.0.5/32']);
    const stale = planVipBinding([at('fd00::9/128'), at('10.0.0.5/32'), at('192.168.7.1/24')], []);
    expect(summary(stale)).toEqual({
      add: [],
      remove: ['10.0.0.5/32', '192.168.7.1/24', 'fd00::9/128'],
      decisions: ['remove 10.0.0.5/32 notDesired', 'remove 192.168.7.1/24 notDesired', 'remove fd00::9/128 notDesired'],
    });
  });

  it('rebinds an owned VIP found with a subnet prefix (it would route the whole subnet into mlb0)', () => {
    expect(summary(planVipBinding([at('10.0.0.5/24')], [ip('10.0.0.5')]))).toEqual({
      add: ['10.0.0.5'],
      remove: ['10.0.0.5/24'],
      decisions: ['remove 10.0.0.5/24 wrongPrefix', 'add 10.0.0.5/32 wrongPrefix'],
    });
    // Both forms present: only the wrong one goes.
    expect(summary(planVipBinding([at('10.0.0.5/24'), at('10.0.0.5/32')], [ip('10.0.0.5')])).remove).toEqual(['10.0.0.5/24']);
    expect(planVipBinding([at('10.0.0.5/24'), at('10.0.0.5/32')], [ip('10.0.0.5')]).add).toEqual([]);
  });

  it('tells an IPv4 address from the IPv6 address of the same value (0.0.0.1 and ::1)', () => {
    const plan = planVipBinding([at('0.0.0.1/32')], [ip('::1'), ip('0.0.0.1')]);
    expect(summary(plan)).toEqual({ add: ['::1'], remove: [], decisions: ['add ::1/128 desiredNotBound', 'keep 0.0.0.1/32 alreadyBound'] });
  });

  it('adds a VIP listed twice once, and says so', () => {
    expect(summary(planVipBinding([], [ip('10.0.0.5'), ip('10.0.0.5')])).decisions).toEqual([
      'add 10.0.0.5/32 desiredNotBound',
      'keep 10.0.0.5/32 duplicateDesired',
    ]);
  });

  const anyIP = fc.oneof(
    fc.integer({ min: 0, max: 15 }).map((n) => ip(`10.0.0.${n}`)),
    fc.integer({ min: 0, max: 15 }).map((n) => ip(`fd00::${n.toString(16)}`)),
  );
  const anyBound = fc.tuple(anyIP, fc.boolean()).map(([address, single]): BoundAddress => ({
    ip: address,
    prefix: single ? (address.family === 4 ? 32 : 128) : address.family === 4 ? 24 : 64,
  }));

  it('applied to mlb0, leaves exactly the owned VIPs as single addresses, and is then a no-op (fast-check)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyBound, { selector: formatBoundAddress }), fc.array(anyIP), (current, desired) => {
        const plan = planVipBinding(current, desired);
        const removed = new Set(plan.remove.map(formatBoundAddress));
        const after = [
          ...current.filter((a) => !removed.has(formatBoundAddress(a))),
          ...plan.add.map((a) => ({ ip: a, prefix: a.family === 4 ? 32 : 128 })),
        ];
        const want = [...new Set(desired.map((d) => `${formatIP(d)}/${d.family === 4 ? 32 : 128}`))].sort();
        expect(after.map(formatBoundAddress).sort()).toEqual(want);
        expect(planVipBinding(after, desired).add).toEqual([]);
        expect(planVipBinding(after, desired).remove).toEqual([]);
      }),
    );
  });
});
