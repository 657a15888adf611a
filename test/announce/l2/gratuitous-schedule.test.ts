import { describe, expect, it } from 'vitest';
import {
  EMPTY_GRATUITOUS_STATE,
  GRATUITOUS_INTERVAL_MS,
  GRATUITOUS_WINDOW_MS,
  reduceGratuitous,
  type GratuitousBurst,
  type GratuitousConfig,
  type GratuitousEvent,
  type GratuitousState,
  type L2Interface,
} from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import {
  ip,
  mac,
  MLB_B,
  MLB_UNSOLICITED_NA,
  METALLB_GRATUITOUS_REPLY,
  METALLB_GRATUITOUS_REQUEST,
  METALLB_NODE,
  METALLB_VIP,
  toHex,
} from './l2-fixtures';

type Timed = { at: number; event: GratuitousEvent };

/** Drives the reducer like the daemon would: apply events at their times, tick at each deadline, until `end`. */
function run(timeline: Timed[], end: number, config?: GratuitousConfig): { at: number; burst: GratuitousBurst }[] {
  let state: GratuitousState = EMPTY_GRATUITOUS_STATE;
  let deadline: number | undefined;
  const out: { at: number; burst: GratuitousBurst }[] = [];
  const pending = [...timeline].sort((a, b) => a.at - b.at);
  for (;;) {
    const nextEvent = pending[0]?.at;
    const now = Math.min(nextEvent ?? Infinity, deadline ?? Infinity);
    if (!Number.isFinite(now) || now > end) return out;
    const event = nextEvent !== undefined && nextEvent <= now ? pending.shift()!.event : { kind: 'tick' as const };
    const step = reduceGratuitous(state, event, now, config);
    for (const burst of step.bursts) out.push({ at: now, burst });
    state = step.state;
    deadline = step.nextDeadline;
  }
}

const gained = (iface: L2Interface = METALLB_NODE, target = METALLB_VIP): GratuitousEvent => ({ kind: 'gained', ip: target, iface });

describe('gratuitous schedule (MetalLB spamLoop)', () => {
  it('bursts at 0, 1100, 2200, 3300, 4400 ms and then stops (5 bursts, as a MetalLB capture shows)', () => {
    const bursts = run([{ at: 0, event: gained() }], 60_000);
    expect(bursts.map((b) => b.at)).toEqual([0, 1100, 2200, 3300, 4400]);
    expect(bursts.map((b) => b.burst.cause)).toEqual(['change', 'window', 'window', 'window', 'window']);
    expect(GRATUITOUS_INTERVAL_MS).toBe(1100);
    expect(GRATUITOUS_WINDOW_MS).toBe(5000);
  });

  it('reports each deadline, and lingers one tick past the window as MetalLB does before forgetting', () => {
    let step = reduceGratuitous(EMPTY_GRATUITOUS_STATE, gained(), 0);
    const deadlines = [step.nextDeadline];
    for (let i = 0; i < 5; i++) {
      step = reduceGratuitous(step.state, { kind: 'tick' }, step.nextDeadline!);
      deadlines.push(step.nextDeadline);
    }
    expect(deadlines).toEqual([1100, 2200, 3300, 4400, 5500, undefined]);
    expect(step.bursts).toEqual([]);
    expect(step.state.entries.size).toBe(0);
  });

  it('each IPv4 burst is the announcement request then the reply, 60 octets each, exactly as MetalLB sends them', () => {
    const [first] = run([{ at: 0, event: gained() }], 0);
    expect(first!.burst.frames.map(toHex)).toEqual([toHex(METALLB_GRATUITOUS_REQUEST), toHex(METALLB_GRATUITOUS_REPLY)]);
    expect(first!.burst.interface).toBe('enp1s0');
  });

  it('each IPv6 burst is one unsolicited NA to ff02::1, O=1 S=0 (golden bytes)', () => {
    const [first] = run([{ at: 0, event: gained(MLB_B, ip('fd00:213:9::2')) }], 0);
    expect(first!.burst.frames.map(toHex)).toEqual([toHex(MLB_UNSOLICITED_NA)]);
  });

  it('a batch of gains and losses at one instant schedules exactly what the same events one by one would', () => {
    const many = Array.from({ length: 300 }, (_, i) => gained(METALLB_NODE, ip(`10.0.${i >> 8}.${i & 0xff}`)));
    const lostSome = many
      .filter((_, i) => i % 3 === 0)
      .map((e): GratuitousEvent => ({ kind: 'lost', ip: (e as { ip: typeof METALLB_VIP }).ip, interfaceName: METALLB_NODE.name }));
    const oneByOne = run([...many.map((event) => ({ at: 0, event })), ...lostSome.map((event) => ({ at: 2000, event }))], 10_000);
    const batched = run(
      [
        { at: 0, event: { kind: 'changes', changes: many as never } },
        { at: 2000, event: { kind: 'changes', changes: lostSome as never } },
      ],
      10_000,
    );
    const view = (bursts: { at: number; burst: GratuitousBurst }[]) =>
      bursts.map((b) => `${b.at} ${formatIP(b.burst.ip)} ${b.burst.cause}`);
    expect(view(batched)).toEqual(view(oneByOne));
    // 300 gained at 0 (bursts at 0 and 1100), 100 of them lost at 2000; the other 200 go on to 4400.
    expect(batched.filter((b) => b.at === 4400)).toHaveLength(200);
  });

  it('a second change extends the window to 5 s after it, without an extra burst', () => {
    const bursts = run(
      [
        { at: 0, event: gained() },
        { at: 2000, event: gained() },
      ],
      60_000,
    );
    expect(bursts.map((b) => b.at)).toEqual([0, 1100, 2200, 3300, 4400, 5500, 6600]);
  });

  it('a change after the window has ended starts afresh with a burst at once', () => {
    const bursts = run(
      [
        { at: 0, event: gained() },
        { at: 5200, event: gained() },
        { at: 8000, event: gained() },
      ],
      60_000,
    );
    // 5200 is still inside MetalLB's map (forgotten at the 5500 tick): extended; 8000 is inside the new window too.
    expect(bursts.map((b) => b.at)).toEqual([0, 1100, 2200, 3300, 4400, 5500, 6600, 7700, 8800, 9900, 11000, 12100]);
    const later = run(
      [
        { at: 0, event: gained() },
        { at: 6000, event: gained() },
      ],
      60_000,
    );
    expect(later.map((b) => [b.at, b.burst.cause])).toEqual([
      [0, 'change'],
      [1100, 'window'],
      [2200, 'window'],
      [3300, 'window'],
      [4400, 'window'],
      [6000, 'change'],
      [7100, 'window'],
      [8200, 'window'],
      [9300, 'window'],
      [10400, 'window'],
    ]);
  });

  it('a changed MAC on the interface bursts at once with the new MAC', () => {
    const moved: L2Interface = { ...METALLB_NODE, mac: mac('52:54:00:3a:10:99') };
    const bursts = run(
      [
        { at: 0, event: gained() },
        { at: 500, event: gained(moved) },
      ],
      60_000,
    );
    // The fresh start at 500 resets both the cadence and the window (500 + 5000): 6000 is past it.
    expect(bursts.map((b) => b.at)).toEqual([0, 500, 1600, 2700, 3800, 4900]);
    const senderMACs = bursts.map((b) => toHex(b.burst.frames[0]!.subarray(6, 12)));
    expect(senderMACs).toEqual(['5254003a1021', ...Array<string>(5).fill('5254003a1099')]);
  });

  it('loss stops the schedule at once; other addresses and interfaces keep theirs', () => {
    const eth1: L2Interface = { ...METALLB_NODE, name: 'eth1' };
    const bursts = run(
      [
        { at: 0, event: gained() },
        { at: 0, event: gained(eth1) },
        { at: 500, event: gained(METALLB_NODE, ip('192.168.10.201')) },
        { at: 1500, event: { kind: 'lost', ip: METALLB_VIP, interfaceName: 'enp1s0' } },
      ],
      60_000,
    );
    const of = (name: string, addr: string) =>
      bursts.filter((b) => b.burst.interface === name && formatIP(b.burst.ip) === addr).map((b) => b.at);
    expect(of('enp1s0', '192.168.10.200')).toEqual([0, 1100]);
    expect(of('eth1', '192.168.10.200')).toEqual([0, 1100, 2200, 3300, 4400]);
    expect(of('enp1s0', '192.168.10.201')).toEqual([500, 1600, 2700, 3800, 4900]);
  });

  it('a late tick sends once and rearms from then (no catch-up storm)', () => {
    let step = reduceGratuitous(EMPTY_GRATUITOUS_STATE, gained(), 0);
    step = reduceGratuitous(step.state, { kind: 'tick' }, 3000);
    expect(step.bursts.length).toBe(1);
    expect(step.nextDeadline).toBe(4100);
  });

  it('an early tick sends nothing and keeps the deadline', () => {
    let step = reduceGratuitous(EMPTY_GRATUITOUS_STATE, gained(), 0);
    step = reduceGratuitous(step.state, { kind: 'tick' }, 1099);
    expect(step.bursts).toEqual([]);
    expect(step.nextDeadline).toBe(1100);
  });

  it('optional refresh (beyond MetalLB): after the window, a burst every refresh interval while owned', () => {
    const config: GratuitousConfig = { intervalMs: 1100, windowMs: 5000, refreshIntervalMs: 30_000 };
    const bursts = run(
      [
        { at: 0, event: gained() },
        { at: 100_000, event: { kind: 'lost', ip: METALLB_VIP, interfaceName: 'enp1s0' } },
      ],
      200_000,
      config,
    );
    expect(bursts.map((b) => [b.at, b.burst.cause])).toEqual([
      [0, 'change'],
      [1100, 'window'],
      [2200, 'window'],
      [3300, 'window'],
      [4400, 'window'],
      [34_400, 'refresh'],
      [64_400, 'refresh'],
      [94_400, 'refresh'],
    ]);
  });

  it('a change during refresh returns to the fast cadence with a burst at once', () => {
    const config: GratuitousConfig = { intervalMs: 1100, windowMs: 5000, refreshIntervalMs: 30_000 };
    const bursts = run(
      [
        { at: 0, event: gained() },
        { at: 20_000, event: gained() },
      ],
      40_000,
      config,
    );
    expect(bursts.filter((b) => b.at >= 20_000).map((b) => b.at)).toEqual([20_000, 21_100, 22_200, 23_300, 24_400]);
  });
});
