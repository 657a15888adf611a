/**
 * The SelfChecker shell (src/daemon/self-check/self-checker.ts) with an injected probe standing in for the segment,
 * a hand-written interface table and a hand-moved clock: what a user sees (the warn line naming the MAC and node, the
 * 'conflict' event, conflicts() for status, the counters) and what must not be reported (our own MACs, a result
 * for an address released meanwhile). The real probe on a real segment is in self-checker.lab.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../src/ip';
import { parseMAC } from '../../../src/announce/l2/mac-address';
import type { HostInterface } from '../../../src/announce/l2/arping/host-interfaces';
import { PacketSocketError } from '../../../src/native';
import { SelfChecker, type ProbeRequest } from '../../../src/daemon/self-check/self-checker';
import {
  SELF_CHECK_CONFLICT_RECHECK_MS,
  SELF_CHECK_INTERVAL_MS,
  SELF_CHECK_MAX_IN_FLIGHT,
  SELF_CHECK_MAX_PROBES_PER_SECOND,
  SELF_CHECK_SOON_MS,
} from '../../../src/daemon/self-check/self-check-schedule';
import { EXPECTED_ANSWER_WINDOW_MS, NO_FACTS, type AnswerFacts } from '../../../src/daemon/self-check/expected-answer';
import {
  CONFLICT_FIRST_MACS_PER_IP,
  CONFLICT_FORGET_MS,
  CONFLICT_LAST_MACS_PER_IP,
  type Conflict,
} from '../../../src/daemon/self-check/conflict-registry';
import { CONFLICT_LOG_INTERVAL_MS } from '../../../src/daemon/self-check/conflict-log-gate';
import { ManualScheduler } from '../../support/manual-scheduler';
import { type Log } from '../../../src/runtime/log';

const ip = (text: string): IP => parseIP(text) as IP;
const VIP = ip('10.213.0.100');
const OURS = '02:13:00:00:00:01';
const OUR_OTHER = '02:13:00:00:00:11';
const PEER = '02:13:00:00:00:02';
const iface = (name: string, mac: string, up = true): HostInterface => ({
  name,
  mac: parseMAC(mac),
  up,
  addresses: [{ ip: ip('10.213.0.1'), prefix: 24 }],
});
const HOST = [iface('eth0', OURS), iface('eth1', OUR_OTHER), { name: 'lo', mac: undefined, up: true, addresses: [] }];

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg?: string;
}

/** A segment where `answerers()` (MACs, lowercase) answer each probe at once; `calls` records every probe. */
function harness(
  options: {
    answerers?: () => string[];
    probe?: (r: ProbeRequest) => Promise<{ sent: boolean; macs: string[]; socketErrors: string[] }>;
    answerFacts?: (ip: IP, mac: string) => AnswerFacts;
  } = {},
) {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, msg?: string) =>
    lines.push({ level, fields: fields as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) });
  const logger: Log = { info: at('info'), warn: at('warn'), debug: at('debug'), error: at('error') };
  const calls: ProbeRequest[] = [];
  const answerers = options.answerers ?? (() => []);
  const checker = new SelfChecker({
    logger,
    runtime: clock,
    interfaces: () => HOST,
    random: () => 0.5,
    macOwners: new Map([[PEER, 'node-b']]),
    ...(options.answerFacts ? { answerFacts: options.answerFacts } : {}),
    probe:
      options.probe ??
      (async (r) => {
        calls.push(r);
        return { sent: true, macs: answerers(), socketErrors: [] };
      }),
  });
  const conflicts: Conflict[] = [];
  const cleared: [Conflict, string][] = [];
  checker.on('conflict', (c) => conflicts.push(c));
  checker.on('conflictCleared', (c, why) => cleared.push([c, why]));
  return { checker, lines, calls, conflicts, cleared };
}

/** The checker's clock and timers, moved by hand (test/support/manual-scheduler.ts). */
let clock: ManualScheduler;
beforeEach(() => {
  clock = new ManualScheduler(Date.parse('2026-10-04T08:00:00Z'));
});

describe('SelfChecker', () => {
  it('probes a new ownership a second later on its interface; only our own MACs answering is no conflict', async () => {
    const h = harness({ answerers: () => [OURS, OUR_OTHER] });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    await clock.advance(SELF_CHECK_SOON_MS - 1);
    expect(h.calls).toHaveLength(0);
    await clock.advance(1);
    expect(h.calls).toHaveLength(1);
    expect(h.calls[0]).toMatchObject({ target: VIP, iface: { name: 'eth0', mac: parseMAC(OURS) } });
    await clock.advance(SELF_CHECK_INTERVAL_MS);
    expect(h.calls).toHaveLength(2);
    expect(h.conflicts).toEqual([]);
    expect(h.checker.conflicts()).toEqual([]);
    expect(h.checker.stats()).toEqual({
      probesSent: 2,
      probesFailed: 0,
      conflictSightings: 0,
      conflictsDetected: 0,
      active: 0,
      expectedAnswers: 0,
    });
    h.checker.close();
  });

  it('another MAC answering is a conflict: warned once naming MAC and node, emitted, listed, followed, then cleared', async () => {
    let peerAnswers = true;
    const h = harness({ answerers: () => (peerAnswers ? [OURS, PEER] : [OURS]) });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    await clock.advance(SELF_CHECK_SOON_MS);
    const expected = {
      ip: '10.213.0.100',
      mac: PEER,
      node: 'node-b',
      interface: 'eth0',
      evidence: 'probeReply',
      reason: 'noReason',
      firstSeen: '2026-10-04T08:00:01.000Z',
      lastSeen: '2026-10-04T08:00:01.000Z',
      sightings: 1,
    };
    expect(h.conflicts).toEqual([expected]);
    expect(h.checker.conflicts()).toEqual([expected]);
    const warn = h.lines.filter((l) => l.level === 'warn');
    expect(warn).toHaveLength(1);
    expect(warn[0]).toMatchObject({ fields: { event: 'splitBrainDetected', ip: '10.213.0.100', mac: PEER, macOwner: 'node-b' } });
    // `node` stays the logging node's own name (logger.ts); the other party is macOwner.
    expect((warn[0] as { fields: Record<string, unknown> }).fields).not.toHaveProperty('node');
    expect(warn[0]?.msg).toMatch(
      /^10\.213\.0\.100 on eth0 is also answered by 02:13:00:00:00:02 \(node node-b\): the election gives that node no reason/,
    );

    // Followed every second while it lasts: lastSeen moves, no second warning or event.
    await clock.advance(SELF_CHECK_CONFLICT_RECHECK_MS);
    expect(h.calls).toHaveLength(2);
    const followed = new Date(Date.parse('2026-10-04T08:00:01Z') + SELF_CHECK_CONFLICT_RECHECK_MS).toISOString();
    expect(h.checker.conflicts()[0]).toMatchObject({ lastSeen: followed, sightings: 2 });
    expect(h.conflicts).toHaveLength(1);

    peerAnswers = false;
    await clock.advance(SELF_CHECK_CONFLICT_RECHECK_MS);
    expect(h.checker.conflicts()[0]?.lastSeen).toBe(followed);
    await clock.advance(CONFLICT_FORGET_MS);
    expect(h.checker.conflicts()).toEqual([]);
    expect(h.cleared).toMatchObject([[{ mac: PEER }, 'notSeen']]);
    expect(h.lines.find((l) => l.fields.event === 'splitBrainCleared')).toMatchObject({
      level: 'info',
      fields: { reason: 'notSeen', mac: PEER },
    });
    expect(h.checker.stats()).toMatchObject({ conflictSightings: 2, conflictsDetected: 1, active: 0 });
    h.checker.close();
  });

  it('a membership change probes every owned IP soon', async () => {
    const h = harness();
    h.checker.setOwned([
      { ip: VIP, interface: 'eth0' },
      { ip: ip('fd00:213::100'), interface: 'eth0' },
    ]);
    await clock.advance(SELF_CHECK_SOON_MS);
    expect(h.calls).toHaveLength(2);
    await clock.advance(SELF_CHECK_INTERVAL_MS / 2);
    h.checker.membershipChanged();
    await clock.advance(SELF_CHECK_SOON_MS);
    expect(h.calls).toHaveLength(4);
    h.checker.close();
  });

  it('passive observations from the announcer are merged and trigger a probe; ours and unowned IPs are ignored', async () => {
    const h = harness();
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    await clock.advance(SELF_CHECK_SOON_MS);
    h.checker.observe({ ip: ip('10.213.0.7'), mac: parseMAC(PEER) as Uint8Array, interface: 'eth0', evidence: 'arpAnnouncement' });
    h.checker.observe({ ip: VIP, mac: parseMAC(OUR_OTHER) as Uint8Array, interface: 'eth0', evidence: 'arpAnnouncement' });
    expect(h.conflicts).toEqual([]);
    h.checker.observe({ ip: VIP, mac: parseMAC(PEER) as Uint8Array, interface: 'eth0', evidence: 'arpAnnouncement' });
    expect(h.conflicts).toMatchObject([{ ip: '10.213.0.100', mac: PEER, node: 'node-b', evidence: 'arpAnnouncement' }]);
    await clock.advance(SELF_CHECK_SOON_MS);
    expect(h.calls).toHaveLength(2);
    h.checker.close();
  });

  it('releasing an IP clears its conflicts, and a probe in flight for it reports nothing', async () => {
    let release: (() => void) | undefined;
    const h = harness({
      probe: (r) =>
        new Promise((resolve) => {
          release = () => resolve({ sent: true, macs: [PEER], socketErrors: [] });
          void r;
        }),
    });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    h.checker.observe({ ip: VIP, mac: parseMAC(PEER) as Uint8Array, interface: 'eth0', evidence: 'neighborAdvertisement' });
    await clock.advance(SELF_CHECK_SOON_MS);
    expect(release).toBeDefined();
    h.checker.setOwned([]);
    await clock.advance(0);
    expect(h.cleared).toMatchObject([[{ ip: '10.213.0.100' }, 'notOwned']]);
    release?.();
    await clock.advance(SELF_CHECK_INTERVAL_MS * 2);
    expect(h.checker.conflicts()).toEqual([]);
    expect(h.checker.stats()).toMatchObject({ conflictSightings: 1, conflictsDetected: 1 });
    h.checker.close();
  });

  it('at most the in-flight limit of probes at once', async () => {
    const pending: (() => void)[] = [];
    const h = harness({ probe: () => new Promise((resolve) => pending.push(() => resolve({ sent: true, macs: [], socketErrors: [] }))) });
    h.checker.setOwned(
      Array.from({ length: SELF_CHECK_MAX_IN_FLIGHT + 8 }, (_, i) => ({ ip: ip(`10.213.0.${100 + i}`), interface: 'eth0' })),
    );
    // The rate limit lets them start a few at a time; a second is enough to fill every slot.
    await clock.advance(SELF_CHECK_SOON_MS + 1000);
    expect(pending).toHaveLength(SELF_CHECK_MAX_IN_FLIGHT);
    pending[0]?.();
    // The next one waits for the rate limit's next token too.
    await clock.advance(Math.ceil(1000 / SELF_CHECK_MAX_PROBES_PER_SECOND));
    expect(pending).toHaveLength(SELF_CHECK_MAX_IN_FLIGHT + 1);
    h.checker.close();
  });

  it('a full in-flight limit of probes listening on the abort signal prints no leak warning on stderr', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const pending: (() => void)[] = [];
    // As the real probe does (probe-sockets.ts): each waits for replies listening for the checker closing.
    const h = harness({
      probe: (r) =>
        new Promise((resolve) => {
          const done = () => resolve({ sent: true, macs: [], socketErrors: [] });
          r.signal.addEventListener('abort', done, { once: true });
          pending.push(done);
        }),
    });
    h.checker.setOwned(
      Array.from({ length: SELF_CHECK_MAX_IN_FLIGHT + 8 }, (_, i) => ({ ip: ip(`10.213.0.${100 + i}`), interface: 'eth0' })),
    );
    await clock.advance(SELF_CHECK_SOON_MS + 1000);
    expect(pending).toHaveLength(SELF_CHECK_MAX_IN_FLIGHT);
    h.checker.close();
    // process.emitWarning reports on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });

  it('a probe that cannot be sent is warned once with its reason, then counted quietly', async () => {
    const h = harness({
      probe: () => Promise.reject(new PacketSocketError('permissionDenied', 'opening a packet socket needs CAP_NET_RAW')),
    });
    h.checker.setOwned([
      { ip: VIP, interface: 'eth0' },
      { ip: VIP, interface: 'eth7' },
    ]);
    await clock.advance(SELF_CHECK_SOON_MS + 2 * SELF_CHECK_INTERVAL_MS);
    const warns = h.lines.filter((l) => l.level === 'warn');
    expect(warns.map((l) => l.fields.code).sort()).toEqual(['interface', 'permissionDenied']);
    expect(warns.find((l) => l.fields.code === 'interface')?.fields.error).toBe('no interface eth7 here');
    expect(h.checker.stats().probesFailed).toBe(6);
    expect(h.checker.stats().probesSent).toBe(0);
    h.checker.close();
  });

  it('close() aborts probes in flight and nothing is reported afterwards; a throwing listener is logged, not thrown', async () => {
    let signal: AbortSignal | undefined;
    const h = harness({
      probe: (r) => {
        signal = r.signal;
        return new Promise((resolve) => r.signal.addEventListener('abort', () => resolve({ sent: true, macs: [PEER], socketErrors: [] })));
      },
    });
    h.checker.on('conflict', () => {
      throw new Error('listener bug');
    });
    h.checker.observe({ ip: VIP, mac: parseMAC(PEER) as Uint8Array, interface: 'eth0', evidence: 'arpReply' });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    h.checker.observe({ ip: VIP, mac: parseMAC(PEER) as Uint8Array, interface: 'eth0', evidence: 'arpReply' });
    expect(h.lines.some((l) => l.fields.event === 'selfCheckListenerFailed')).toBe(true);
    await clock.advance(SELF_CHECK_SOON_MS);
    h.checker.close();
    expect(signal?.aborted).toBe(true);
    await clock.advance(0);
    expect(h.checker.stats().conflictSightings).toBe(1);
  });

  it('20,000 spoofed replies from random MACs: a few log lines and events, a short list, exact counts', async () => {
    const h = harness();
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    const SPOOFED = 20_000;
    for (let i = 0; i < SPOOFED; i++) {
      const mac = Uint8Array.of(0x02, 0x99, (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff, 0x01);
      h.checker.observe({ ip: VIP, mac, interface: 'eth0', evidence: 'arpReply' });
      // Spread over 30 s, as a flood from the segment would arrive.
      if (i % 1000 === 999) await clock.advance(1500);
    }
    await clock.advance(CONFLICT_LOG_INTERVAL_MS);
    const detected = h.lines.filter((l) => l.fields.event === 'splitBrainDetected');
    // One line when the flood starts, then one "and N more" per 10 s window: a handful, not 20,000.
    expect(detected.length).toBeLessThanOrEqual(1 + Math.ceil(30_000 / CONFLICT_LOG_INTERVAL_MS) + 1);
    const summarised = detected.reduce((n, l) => n + (typeof l.fields.moreMacs === 'number' ? l.fields.moreMacs : 0), 0);
    expect(summarised + h.conflicts.length).toBe(SPOOFED);
    expect(h.conflicts.length).toBeLessThanOrEqual(detected.length);
    // The list keeps the first MACs and the latest ones; the status stays a few lines long.
    const listed = h.checker.conflicts();
    expect(listed).toHaveLength(CONFLICT_FIRST_MACS_PER_IP + CONFLICT_LAST_MACS_PER_IP);
    expect(listed.map((c) => c.mac)).toContain('02:99:00:00:00:01');
    expect(listed.map((c) => c.mac)).toContain('02:99:00:4e:1f:01');
    // The metrics stay exact: every reply counted, every MAC active.
    expect(h.checker.stats()).toMatchObject({ conflictSightings: SPOOFED, conflictsDetected: SPOOFED, active: SPOOFED });
    h.checker.close();
  });
});

describe('SelfChecker: answers the cluster expects', () => {
  const T0 = Date.parse('2026-10-04T08:00:00Z');
  const STRANGER = '02:99:00:00:00:07';
  /** node-b held VIP until this node took it at T0 (the owner history), and node-b is not draining. */
  const handover = (_ip: IP, mac: string): AnswerFacts =>
    mac === PEER ? { ...NO_FACTS, member: 'node-b', takeover: { from: ['node-b'], at: T0 } } : NO_FACTS;
  const warned = (h: ReturnType<typeof harness>) => h.lines.filter((l) => l.level === 'warn' && l.fields.event === 'splitBrainDetected');

  it('the previous owner answering during the handover window is expected: no warning, no conflict, counted apart', async () => {
    let peerAnswers = true;
    const h = harness({ answerers: () => (peerAnswers ? [OURS, PEER] : [OURS]), answerFacts: handover });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    await clock.advance(SELF_CHECK_SOON_MS + SELF_CHECK_CONFLICT_RECHECK_MS);
    expect(h.calls).toHaveLength(2);
    expect(warned(h)).toEqual([]);
    expect(h.conflicts).toEqual([]);
    expect(h.checker.conflicts()).toEqual([]);
    expect(h.checker.stats()).toMatchObject({ expectedAnswers: 2, conflictSightings: 0, conflictsDetected: 0, active: 0 });
    // Said once, at debug, with its reason.
    const said = h.lines.filter((l) => l.fields.event === 'selfCheckExpectedAnswer');
    expect(said).toMatchObject([
      { level: 'debug', fields: { ip: '10.213.0.100', mac: PEER, macOwner: 'node-b', reason: 'expectedHandover' } },
    ]);

    // The old owner hears us and lets go: nothing is ever reported.
    peerAnswers = false;
    await clock.advance(EXPECTED_ANSWER_WINDOW_MS + CONFLICT_FORGET_MS);
    expect(warned(h)).toEqual([]);
    expect(h.checker.stats()).toMatchObject({ conflictsDetected: 0, active: 0 });
    h.checker.close();
  });

  it('the previous owner still answering once the window is over is a conflict (windowOver), found within a recheck', async () => {
    const h = harness({ answerers: () => [OURS, PEER], answerFacts: handover });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    await clock.advance(EXPECTED_ANSWER_WINDOW_MS - 1);
    expect(h.conflicts).toEqual([]);
    await clock.advance(SELF_CHECK_CONFLICT_RECHECK_MS + 1);
    expect(h.conflicts).toMatchObject([{ ip: '10.213.0.100', mac: PEER, node: 'node-b', reason: 'windowOver' }]);
    expect(warned(h)).toHaveLength(1);
    expect(warned(h)[0]?.msg).toContain('still answers after the window in which that was expected ended');
    expect(h.checker.stats()).toMatchObject({ conflictsDetected: 1, active: 1 });
    h.checker.close();
  });

  it('a MAC of no member answering during a handover is a conflict at the first probe', async () => {
    const h = harness({ answerers: () => [OURS, PEER, STRANGER], answerFacts: handover });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    await clock.advance(SELF_CHECK_SOON_MS);
    expect(h.conflicts).toMatchObject([{ mac: STRANGER, node: null, reason: 'notMember' }]);
    expect(h.checker.conflicts().map((c) => c.mac)).toEqual([STRANGER]);
    h.checker.close();
  });

  it("a draining node's gratuitous ARP is expected while it hands over; a member with no reason is reported at once", async () => {
    const OTHER = '02:13:00:00:00:03';
    const facts = (_ip: IP, mac: string): AnswerFacts =>
      mac === PEER
        ? { ...NO_FACTS, member: 'node-b', memberDraining: true }
        : mac === OTHER
          ? { ...NO_FACTS, member: 'node-c', rankedAhead: ['node-b'] }
          : NO_FACTS;
    const h = harness({ answerFacts: facts });
    h.checker.setOwned([{ ip: VIP, interface: 'eth0' }]);
    h.checker.observe({ ip: VIP, mac: parseMAC(PEER) as Uint8Array, interface: 'eth0', evidence: 'arpAnnouncement' });
    expect(h.conflicts).toEqual([]);
    expect(h.checker.stats().expectedAnswers).toBe(1);
    h.checker.observe({ ip: VIP, mac: parseMAC(OTHER) as Uint8Array, interface: 'eth0', evidence: 'arpAnnouncement' });
    expect(h.conflicts).toMatchObject([{ mac: OTHER, reason: 'noReason' }]);
    h.checker.close();
  });
});
