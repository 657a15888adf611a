import { describe, expect, test } from 'vitest';
import { FAST_CONFIG, LAN_CONFIG, SwimConfigError, createSwimNode, step, type SwimState } from '../../../src/gossip/swim';
import type { Member } from '../../../src/gossip/swim';
import { LATE_DEADLINE_MS } from '../../../src/gossip/swim/probe';
import { Driver, addr, alive, emitted, ip, messagesOf, packets, PORT, reasons, streams } from './harness';

describe('start', () => {
  test('alive at incarnation 1, a join event for ourselves, our alive queued for broadcast', () => {
    const d = new Driver();
    expect(d.state.members.get('me')).toMatchObject({ state: 'alive', incarnation: 1, port: PORT });
    expect(emitted(d.result.effects)).toEqual([{ type: 'join', member: d.state.members.get('me') }]);
    expect(d.state.memberQueue.items.map((i) => i.message.type)).toEqual(['alive']);
    // Alone: no probe or gossip tick is due, only the push/pull (which finds no one either).
    expect(d.result.nextDeadline).toBe(d.state.nextPushPullAt);
  });

  test('a lone node sleeps until a member appears, then probes and gossips on its grid', () => {
    const d = new Driver();
    expect(d.advance(30_000)).toEqual([]);
    d.learn('b');
    // The first probe was overdue: it went out with the packet that brought b, and the next waits for the grid.
    expect(messagesOf(d.result.effects, 'ping').map((m) => m.node)).toEqual(['b']);
    expect(d.result.nextDeadline).toBeGreaterThan(d.now);
    expect(d.result.nextDeadline).toBeLessThanOrEqual(d.now + LAN_CONFIG.probeInterval);
    expect(d.state.nextGossipAt).toBeGreaterThan(d.now);
  });

  test('meta over 512 bytes, bad identities and short Vsn throw SwimConfigError', () => {
    expect(() => new Driver(LAN_CONFIG, { meta: new Uint8Array(513) })).toThrow(SwimConfigError);
    expect(() => new Driver(LAN_CONFIG, { meta: new Uint8Array(512) })).not.toThrow();
    const base = { name: 'x', addr: ip(1), port: PORT, seed: 1, now: 0 };
    expect(() => createSwimNode({ ...base, name: '' })).toThrow(/empty name/);
    expect(() => createSwimNode({ ...base, addr: Uint8Array.of(1, 2, 3) })).toThrow(/3 bytes/);
    expect(() => createSwimNode({ ...base, port: 0 })).toThrow(/port/);
    expect(() => createSwimNode({ ...base, vsn: Uint8Array.of(1, 5, 2) })).toThrow(SwimConfigError);
  });

  test('the reducer never mutates the state it is given', () => {
    const d = new Driver();
    d.learn('b', 'c');
    const before: SwimState = d.state;
    const members = new Map(before.members);
    const order = [...before.probeOrder];
    step(before, { type: 'packet', from: addr(2), messages: [{ type: 'suspect', node: 'c', incarnation: 1, from: 'b' }] }, 5);
    step(before, { type: 'tick' }, 100_000);
    // The state's maps are layered (layered-map.ts): compared by their entries, in order.
    expect(new Map(before.members)).toEqual(members);
    expect([...before.members.keys()]).toEqual([...members.keys()]);
    expect(before.probeOrder).toEqual(order);
    expect(before.suspicions.size).toBe(0);
  });
});

describe('ping and ack', () => {
  test('a ping is acked to its SourceAddr:SourcePort, with broadcasts piggybacked', () => {
    const d = new Driver();
    const effects = d.packet(9, { type: 'ping', seqNo: 42, node: 'me', sourceAddr: ip(5), sourcePort: 7000, sourceNode: 'e' });
    const [reply] = packets(effects);
    expect(reply!.to).toEqual({ addr: ip(5), port: 7000, name: 'e' });
    expect(reply!.messages[0]).toEqual({ type: 'ack', seqNo: 42 });
    expect(reply!.messages.slice(1).map((m) => m.type)).toEqual(['alive']);
    expect(reply!.reason).toBe('ack');
  });

  test('without Source fields the ack goes to the packet source; a ping for another name is ignored', () => {
    const d = new Driver();
    expect(packets(d.packet(9, { type: 'ping', seqNo: 1, node: '' }))[0]!.to).toEqual(addr(9));
    const effects = d.packet(9, { type: 'ping', seqNo: 2, node: 'someone-else' });
    expect(packets(effects)).toEqual([]);
    expect(reasons(effects)).toContain('pingForOtherNode');
  });
});

describe('alive', () => {
  test('a new member joins; older or equal incarnations are ignored; newer ones are re-broadcast', () => {
    const d = new Driver();
    const joined = emitted(d.packet(2, alive('b', 2, 3)));
    expect(joined.map((e) => e.type)).toEqual(['join']);
    expect(d.state.members.get('b')).toMatchObject({ state: 'alive', incarnation: 3 });
    expect(reasons(d.packet(2, alive('b', 2, 3)))).toContain('staleIncarnation');
    const meta = Uint8Array.of(1, 2);
    expect(emitted(d.packet(2, alive('b', 2, 4, meta))).map((e) => e.type)).toEqual(['update']);
    const queued = d.state.memberQueue.items.filter((i) => i.key === 'b');
    expect(queued).toHaveLength(1); // the newer alive replaced the older one
    expect(queued[0]!.message).toMatchObject({ type: 'alive', incarnation: 4 });
  });

  test('new names take a random position in the probe order', () => {
    const positions = new Set<number>();
    for (let seed = 1; seed <= 30; seed++) {
      const d = new Driver(LAN_CONFIG, { seed });
      d.learn('b', 'c', 'd', 'e');
      positions.add(d.state.probeOrder.indexOf('e'));
    }
    expect(positions.size).toBeGreaterThan(2);
  });

  test('a Vsn that is not 6 bytes, or names impossible versions, is ignored', () => {
    const d = new Driver();
    expect(reasons(d.packet(2, { ...alive('b', 2, 1), vsn: Uint8Array.of(1, 5, 2, 0, 0) }))).toContain('badVsn');
    expect(reasons(d.packet(2, { ...alive('b', 2, 1), vsn: Uint8Array.of(0, 5, 2, 0, 0, 0) }))).toContain('badVsn');
    expect(reasons(d.packet(2, { ...alive('b', 2, 1), vsn: Uint8Array.of(4, 3, 3, 0, 0, 0) }))).toContain('badVsn');
    expect(d.state.members.has('b')).toBe(false);
  });

  test('another address for a live name is a conflict; for a left one it is an update', () => {
    const d = new Driver();
    d.learn('b');
    const effects = d.packet(7, { ...alive('b', 7, 9) });
    expect(reasons(effects)).toContain('conflictingAddress');
    expect(emitted(effects)[0]).toMatchObject({ type: 'conflict', other: { name: 'b', port: PORT } });
    expect(d.state.members.get('b')!.addr).toEqual(ip(2));

    d.packet(2, { type: 'dead', node: 'b', from: 'b', incarnation: 1 });
    expect(d.stateOf('b')).toBe('left');
    const back = d.packet(7, alive('b', 7, 1)); // same incarnation: accepted because the address moves
    expect(reasons(back)).toContain('addressUpdated');
    expect(emitted(back).map((e) => e.type)).toEqual(['join']);
    expect(d.state.members.get('b')).toMatchObject({ addr: ip(7), state: 'alive' });
  });

  test('a dead name can be reclaimed from another address after DeadNodeReclaimTime', () => {
    const d = new Driver({ ...LAN_CONFIG, deadNodeReclaimTime: 1000 });
    d.learn('b');
    d.packet(3, { type: 'dead', node: 'b', from: 'x', incarnation: 1 });
    expect(reasons(d.packet(7, alive('b', 7, 2)))).toContain('conflictingAddress');
    d.now = 5000;
    expect(reasons(d.packet(7, alive('b', 7, 2)))).toContain('addressUpdated');
  });
});

describe('refutation and incarnations', () => {
  test('suspect about us: refute with a higher incarnation and a health penalty', () => {
    const d = new Driver();
    const effects = d.packet(2, { type: 'suspect', node: 'me', incarnation: 1, from: 'b' });
    expect(reasons(effects)).toContain('refute');
    expect(d.state.members.get('me')).toMatchObject({ state: 'alive', incarnation: 2 });
    expect(d.state.health).toBe(1);
    const queued = d.state.memberQueue.items.find((i) => i.key === 'me')!;
    expect(queued.message).toMatchObject({ type: 'alive', node: 'me', incarnation: 2 });
  });

  test('dead about us with a high incarnation: refute above it', () => {
    const d = new Driver();
    d.packet(2, { type: 'dead', node: 'me', incarnation: 7, from: 'b' });
    expect(d.state.members.get('me')).toMatchObject({ state: 'alive', incarnation: 8 });
  });

  test('alive about us: older ignored, identical ignored, newer (a previous life) refuted', () => {
    const d = new Driver();
    expect(reasons(d.packet(2, alive('me', 1, 1)))).not.toContain('refute');
    expect(reasons(d.packet(2, alive('me', 1, 1, Uint8Array.of(9))))).toContain('refute'); // same inc, other meta
    expect(d.state.members.get('me')!.incarnation).toBe(2);
    d.packet(2, alive('me', 1, 5));
    expect(d.state.members.get('me')!.incarnation).toBe(6);
    expect(reasons(d.packet(2, alive('me', 1, 3)))).not.toContain('refute');
  });
});

describe('suspicion and death', () => {
  test('suspect, confirmations shorten the timer, then dead and a leave event', () => {
    const d = new Driver(); // LAN
    d.learn('b', 'c', 'd', 'e'); // n = 5: k = 2, min 4 s, max 24 s
    d.now = 1000;
    d.packet(2, { type: 'suspect', node: 'e', incarnation: 1, from: 'b' });
    expect(d.stateOf('e')).toBe('suspect');
    expect(d.state.suspicions.get('e')!.deadline).toBe(1000 + 24_000);
    d.now = 2000;
    d.packet(3, { type: 'suspect', node: 'e', incarnation: 1, from: 'c' });
    // 24 - ln2/ln3 x 20 = 11.381 s after the start
    expect(d.state.suspicions.get('e')!.deadline).toBe(1000 + 11_381);
    d.packet(3, { type: 'suspect', node: 'e', incarnation: 1, from: 'c' }); // repeat: nothing
    expect(d.state.suspicions.get('e')!.confirmations).toBe(1);
    d.packet(4, { type: 'suspect', node: 'e', incarnation: 1, from: 'd' });
    expect(d.state.suspicions.get('e')!.deadline).toBe(1000 + 4000);
    const effects = d.advance(5000);
    expect(d.stateOf('e')).toBe('dead');
    expect(reasons(effects)).toContain('suspicionTimeout');
    expect(
      emitted(effects)
        .filter((e) => e.type === 'leave')
        .map((e) => e.type === 'leave' && e.member.name),
    ).toEqual(['e']);
    expect(d.state.memberQueue.items.find((i) => i.key === 'e')!.message).toMatchObject({ type: 'dead', from: 'me' });
  });

  test('an alive with a higher incarnation cancels the suspicion', () => {
    const d = new Driver();
    d.learn('b', 'c');
    d.packet(2, { type: 'suspect', node: 'c', incarnation: 1, from: 'b' });
    const deadline = d.state.suspicions.get('c')!.deadline;
    d.packet(3, alive('c', 3, 2));
    expect(d.stateOf('c')).toBe('alive');
    expect(d.state.suspicions.size).toBe(0);
    d.advanceAnswering(deadline + 60_000);
    expect(d.stateOf('c')).toBe('alive');
  });

  test('suspect about unknown, older or non-alive members is ignored', () => {
    const d = new Driver();
    d.learn('b');
    expect(reasons(d.packet(2, { type: 'suspect', node: 'zz', incarnation: 1, from: 'b' }))).toContain('unknownNode');
    d.packet(2, alive('b', 2, 5));
    expect(reasons(d.packet(2, { type: 'suspect', node: 'b', incarnation: 4, from: 'x' }))).toContain('staleIncarnation');
    d.packet(2, { type: 'dead', node: 'b', incarnation: 5, from: 'x' });
    d.packet(2, { type: 'suspect', node: 'b', incarnation: 5, from: 'x' });
    expect(d.stateOf('b')).toBe('dead');
  });

  test('dead from the node itself means left', () => {
    const d = new Driver();
    d.learn('b');
    const effects = d.packet(2, { type: 'dead', node: 'b', incarnation: 1, from: 'b' });
    expect(d.stateOf('b')).toBe('left');
    expect(emitted(effects).map((e) => e.type)).toEqual(['leave']);
  });

  test('a member declared dead keeps the time of its last packet, whatever the profile', () => {
    const d = new Driver(); // LAN: memberlist's profile, without extendWhenHeard
    d.learn('b', 'c');
    d.now = 3_000;
    d.packet(2, { type: 'ping', seqNo: 7, node: 'me', sourceAddr: ip(2), sourcePort: PORT, sourceNode: 'b' });
    d.now = 9_000;
    d.packet(3, { type: 'dead', node: 'b', incarnation: 1, from: 'c' });
    expect(d.stateOf('b')).toBe('dead');
    // What the daemon measures a crashed owner's unheld time from (owner-history.ts).
    expect(d.state.lastHeard.get('b')).toBe(3_000);
    expect(d.state.members.get('b')!.stateChange).toBe(9_000);
  });
});

describe('probe round', () => {
  function probeOnce(d: Driver) {
    return d.advance(d.state.nextProbeAt);
  }

  test('ping the next member; an ack ends the probe and lowers health', () => {
    const d = new Driver();
    d.learn('b');
    d.packet(2, { type: 'suspect', node: 'me', incarnation: 1, from: 'b' }); // health 1
    const effects = probeOnce(d);
    const [ping] = messagesOf(effects, 'ping');
    expect(ping).toMatchObject({ node: 'b', sourceNode: 'me', sourcePort: PORT });
    expect(d.state.probe).toBeDefined();
    expect(d.state.probe!.deadline - d.state.probe!.sentAt).toBe(2 * LAN_CONFIG.probeInterval); // health 1 doubles it
    d.packet(2, { type: 'ack', seqNo: ping!.seqNo });
    expect(d.state.probe).toBeUndefined();
    expect(d.state.health).toBe(0);
  });

  test('no ack: indirect pings with nack requests and a TCP ping, then suspect; missed nacks cost health', () => {
    const d = new Driver();
    d.learn('b', 'c', 'd');
    probeOnce(d);
    const probe = d.state.probe!;
    const target = probe.target;
    const indirect = d.advance(probe.indirectAt);
    const requests = messagesOf(indirect, 'indirectPing');
    expect(requests).toHaveLength(2);
    expect(requests.every((r) => r.nack && r.node === target && r.seqNo === probe.seqNo)).toBe(true);
    expect(
      packets(indirect)
        .map((p) => p.to.name)
        .sort(),
    ).toEqual(['b', 'c', 'd'].filter((n) => n !== target).sort());
    const [tcp] = streams(indirect);
    expect(tcp).toMatchObject({ purpose: 'tcpPing', deadline: probe.deadline, message: { type: 'ping', seqNo: probe.seqNo } });
    d.packet(9, { type: 'nack', seqNo: probe.seqNo }); // one of the two relays answered
    const expired = d.advance(probe.deadline);
    expect(reasons(expired)).toEqual(expect.arrayContaining(['probeFailed', 'suspect']));
    expect(d.stateOf(target)).toBe('suspect');
    expect(d.state.health).toBe(1); // 2 expected nacks, 1 received
  });

  describe('directPingRetries (FAST only)', () => {
    /** One probe of b acked `rttMs` after the ping, then the next probe of b left unanswered until its indirect moment. */
    function lateSecondProbe(config: typeof LAN_CONFIG, rttMs: number) {
      const d = new Driver(config);
      d.learn('b');
      d.advance(d.state.nextProbeAt);
      const first = d.state.probe!;
      d.advance(first.sentAt + rttMs);
      d.packet(2, { type: 'ack', seqNo: first.seqNo });
      d.advance(d.state.nextProbeAt);
      const second = d.state.probe!;
      const indirect = d.advance(second.indirectAt);
      // Every direct ping to b at that moment is a retry (each with a sequence number of its own).
      return messagesOf(indirect, 'ping').filter((p) => p.node === 'b' && p.seqNo !== second.seqNo);
    }

    test('a member that answered quickly gets the direct ping again when its ack is late', () => {
      // The copies for the direct path, plus the TCP ping (a stream, not counted here).
      const retries = lateSecondProbe(FAST_CONFIG, 1);
      expect(retries.length).toBeGreaterThan(0);
      expect(retries).toHaveLength(FAST_CONFIG.directPingRetries);
    });

    test('a member that answered slowly gets no extra pings (they would load a busy node)', () => {
      expect(lateSecondProbe(FAST_CONFIG, FAST_CONFIG.probeTimeout - 1)).toHaveLength(0);
    });

    test('a lost first copy answered right after the retries keeps the member quick: the next late ack gets retries too', () => {
      const d = new Driver(FAST_CONFIG);
      d.learn('b');
      d.advance(d.state.nextProbeAt);
      d.packet(2, { type: 'ack', seqNo: d.state.probe!.seqNo }); // quick: 0 ms
      d.advance(d.state.nextProbeAt);
      const lossy = d.state.probe!;
      // The first copy was lost; the retries go out, each with a sequence number of its own.
      const copies = messagesOf(d.advance(lossy.indirectAt), 'ping').filter((p) => p.node === 'b');
      expect(copies).toHaveLength(FAST_CONFIG.directPingRetries);
      expect(new Set([lossy.seqNo, ...copies.map((p) => p.seqNo)]).size).toBe(FAST_CONFIG.directPingRetries + 1);
      d.advance(lossy.indirectAt + 2);
      d.packet(2, { type: 'ack', seqNo: copies[1]!.seqNo }); // a retry answered 2 ms after it went out
      expect(d.state.probe).toBeUndefined();
      d.advance(d.state.nextProbeAt);
      const next = d.state.probe!;
      expect(messagesOf(d.advance(next.indirectAt), 'ping').filter((p) => p.node === 'b')).toHaveLength(FAST_CONFIG.directPingRetries);
    });

    test("a busy member's late ack of the first copy marks it slow, even just after the retries: no retries next time", () => {
      const d = new Driver(FAST_CONFIG);
      d.learn('b');
      d.advance(d.state.nextProbeAt);
      d.packet(2, { type: 'ack', seqNo: d.state.probe!.seqNo });
      d.advance(d.state.nextProbeAt);
      const slow = d.state.probe!;
      d.advance(slow.indirectAt + 2);
      d.packet(2, { type: 'ack', seqNo: slow.seqNo }); // the first copy's ack, 102 ms late
      d.advance(d.state.nextProbeAt);
      const next = d.state.probe!;
      expect(messagesOf(d.advance(next.indirectAt), 'ping').filter((p) => p.node === 'b')).toHaveLength(0);
    });

    test("memberlist's own profiles never send them", () => {
      expect(LAN_CONFIG.directPingRetries).toBe(0);
      expect(lateSecondProbe(LAN_CONFIG, 1)).toHaveLength(0);
    });
  });

  describe('extendWhenHeard (FAST only)', () => {
    /** A probe of b that nobody acks; b may say something else to us during the round. */
    function unanswered(config: typeof LAN_CONFIG, heard: boolean) {
      const d = new Driver(config);
      d.learn('b');
      d.advance(d.state.nextProbeAt);
      const probe = d.state.probe!;
      if (heard)
        (d.advance(probe.sentAt + 10),
          d.packet(2, { type: 'ping', seqNo: 99, node: 'me', sourceAddr: ip(2), sourcePort: PORT, sourceNode: 'b' }));
      const expired = d.advance(probe.deadline);
      return { d, probe, expired };
    }

    test('a member heard from during the round gets one more round and a fresh ping, not a suspicion', () => {
      const { d, probe, expired } = unanswered(FAST_CONFIG, true);
      expect(reasons(expired)).toContain('probeExtended');
      expect(reasons(expired)).not.toContain('suspect');
      expect(d.stateOf('b')).toBe('alive');
      // The fresh ping and, b having answered quickly before, nothing more (it never answered here).
      expect(messagesOf(expired, 'ping').filter((p) => p.node === 'b' && p.seqNo === probe.seqNo)).toHaveLength(1);
      d.packet(2, { type: 'ack', seqNo: probe.seqNo });
      expect(d.state.probe?.seqNo).not.toBe(probe.seqNo);
      expect(d.state.stats).toMatchObject({ probesExtended: 1, probesFailed: 0, suspicionsStarted: 0 });
      expect(d.stateOf('b')).toBe('alive');
    });

    test('one extension only: still no ack at the second deadline is a suspicion', () => {
      const { d } = unanswered(FAST_CONFIG, true);
      d.packet(2, { type: 'ping', seqNo: 100, node: 'me', sourceAddr: ip(2), sourcePort: PORT, sourceNode: 'b' });
      const expired = d.advance(d.state.probe!.deadline);
      expect(reasons(expired)).toContain('suspect');
      expect(d.stateOf('b')).toBe('suspect');
    });

    test('a silent member (crashed) is suspected at the first deadline: detection time is unchanged', () => {
      const { d, expired } = unanswered(FAST_CONFIG, false);
      expect(reasons(expired)).toContain('suspect');
      expect(d.stateOf('b')).toBe('suspect');
    });

    test('a prober that handles its deadline late (its own loop was blocked) gives the member one more round', () => {
      const d = new Driver(FAST_CONFIG);
      d.learn('b');
      d.advance(d.state.nextProbeAt);
      const probe = d.state.probe!;
      // One tick, late: what a blocked event loop does (advance() would tick at the deadline itself).
      const expired = d.send({ type: 'tick' }, probe.deadline + LATE_DEADLINE_MS);
      expect(reasons(expired)).toContain('probeExtended');
      expect(d.stateOf('b')).toBe('alive');
    });

    test("memberlist's own profiles suspect at the deadline whatever they heard", () => {
      expect(LAN_CONFIG.extendWhenHeard).toBe(false);
      expect(unanswered(LAN_CONFIG, true).d.stateOf('b')).toBe('suspect');
    });
  });

  test('an indirect ack saves the probe', () => {
    const d = new Driver();
    d.learn('b', 'c');
    probeOnce(d);
    const probe = d.state.probe!;
    d.advance(probe.indirectAt);
    d.packet(3, { type: 'ack', seqNo: probe.seqNo });
    d.advance(probe.deadline + 1);
    expect(d.stateOf(probe.target)).toBe('alive');
  });

  test('only the TCP ping got through: no suspicion, a warning', () => {
    const d = new Driver();
    d.learn('b');
    probeOnce(d);
    const probe = d.state.probe!;
    const [tcp] = streams(d.advance(probe.indirectAt));
    d.send({ type: 'streamReply', stream: tcp!.stream, message: { type: 'ack', seqNo: probe.seqNo } });
    const effects = d.advance(probe.deadline);
    expect(reasons(effects)).toContain('probeTcpOnly');
    expect(d.stateOf('b')).toBe('alive');
  });

  test('no TCP ping for peers below protocol 3 or when disabled; no nack request below protocol 4', () => {
    const d = new Driver({ ...LAN_CONFIG, disableTcpPings: false });
    d.packet(2, alive('b', 2, 1, undefined, Uint8Array.of(1, 2, 2, 0, 0, 0)));
    d.packet(3, alive('c', 3, 1, undefined, Uint8Array.of(1, 3, 2, 0, 0, 0)));
    let tcpFor = new Set<string>();
    let nacks = new Map<string, boolean>();
    for (let i = 0; i < 4; i++) {
      d.advance(d.state.nextProbeAt);
      const probe = d.state.probe!;
      const effects = d.advance(probe.indirectAt);
      streams(effects).forEach((s) => tcpFor.add(s.to.name!));
      packets(effects).forEach((p) => p.messages.forEach((m) => m.type === 'indirectPing' && nacks.set(p.to.name!, m.nack)));
      d.packet(2, { type: 'ack', seqNo: probe.seqNo });
    }
    expect([...tcpFor]).toEqual(['c']);
    expect(nacks.get('b')).toBe(false);
    expect(nacks.get('c')).toBe(false);
    const off = new Driver({ ...LAN_CONFIG, disableTcpPings: true });
    off.learn('b');
    off.advance(off.state.nextProbeAt);
    expect(streams(off.advance(off.state.probe!.indirectAt))).toEqual([]);
  });

  test('a suspect target gets the ping compounded with the suspicion', () => {
    const d = new Driver();
    d.learn('b');
    d.packet(2, { type: 'suspect', node: 'b', incarnation: 1, from: 'x' });
    const [packet] = packets(d.advance(d.state.nextProbeAt)).filter((p) => p.reason !== 'gossip');
    expect(packet!.reason).toBe('pingSuspect');
    expect(packet!.messages.map((m) => m.type)).toEqual(['ping', 'suspect']);
  });

  test('every pass probes each live member exactly once', () => {
    const d = new Driver(LAN_CONFIG, { seed: 3 });
    d.learn('b', 'c', 'd', 'e', 'f');
    const targets: string[] = [];
    for (let i = 0; i < 15; i++) {
      d.advance(d.state.nextProbeAt);
      const probe = d.state.probe!;
      targets.push(probe.target);
      d.packet(2, { type: 'ack', seqNo: probe.seqNo });
    }
    for (let pass = 0; pass < 3; pass++) {
      expect(targets.slice(pass * 5, pass * 5 + 5).sort()).toEqual(['b', 'c', 'd', 'e', 'f']);
    }
  });
});

describe('relaying indirect pings', () => {
  test("ping the target with our own sequence number; relay its ack with the requester's", () => {
    const d = new Driver();
    const effects = d.packet(2, {
      type: 'indirectPing',
      seqNo: 77,
      target: ip(3),
      port: PORT,
      node: 'c',
      nack: true,
      sourceAddr: ip(2),
      sourcePort: PORT,
      sourceNode: 'b',
    });
    const [ping] = messagesOf(effects, 'ping');
    expect(packets(effects)[0]!.to).toEqual({ addr: ip(3), port: PORT, name: 'c' });
    expect(ping!.seqNo).not.toBe(77);
    const relayed = d.packet(3, { type: 'ack', seqNo: ping!.seqNo });
    expect(packets(relayed)[0]!.to).toEqual(addr(2, 'b'));
    expect(messagesOf(relayed, 'ack')).toEqual([{ type: 'ack', seqNo: 77 }]);
    expect(messagesOf(d.advance(10_000), 'nack')).toEqual([]); // answered: no nack
  });

  test('no ack within ProbeTimeout: a nack when asked for one', () => {
    const d = new Driver();
    d.packet(2, { type: 'indirectPing', seqNo: 5, target: ip(3), port: PORT, node: 'c', nack: true });
    const effects = d.advance(LAN_CONFIG.probeTimeout);
    expect(messagesOf(effects, 'nack')).toEqual([{ type: 'nack', seqNo: 5 }]);
    expect(packets(effects).find((p) => p.reason === 'nack')!.to).toEqual(addr(2));
    const quiet = new Driver();
    quiet.packet(2, { type: 'indirectPing', seqNo: 5, target: ip(3), port: PORT, node: 'c', nack: false });
    expect(messagesOf(quiet.advance(LAN_CONFIG.probeTimeout), 'nack')).toEqual([]);
  });
});

describe('leave', () => {
  test('broadcast our death with From = ourselves; done when the broadcast went out', () => {
    const d = new Driver(FAST_CONFIG);
    d.learn('b', 'c');
    d.send({ type: 'leave', timeout: 5000 });
    expect(d.stateOf('me')).toBe('left');
    const queued = d.state.memberQueue.items.find((i) => i.key === 'me')!;
    expect(queued.message).toEqual({ type: 'dead', node: 'me', from: 'me', incarnation: 1 });
    const effects = d.advance(3000);
    expect(emitted(effects)).toContainEqual({ type: 'leaveResult', outcome: 'broadcast' });
    // Leaving: suspect/dead about us are not refuted, alive about us is ignored.
    d.packet(2, { type: 'dead', node: 'me', incarnation: 1, from: 'b' });
    expect(reasons(d.packet(2, alive('me', 1, 9)))).toContain('ignoredWhileLeaving');
    expect(d.stateOf('me')).toBe('left');
    expect(emitted(d.send({ type: 'leave', timeout: 0 }))).toEqual([{ type: 'leaveResult', outcome: 'alreadyLeft' }]);
  });

  test('alone: done at once; unreachable peers: timeout', () => {
    const alone = new Driver();
    expect(emitted(alone.send({ type: 'leave', timeout: 1000 }))).toContainEqual({ type: 'leaveResult', outcome: 'alone' });
    const d = new Driver({ ...LAN_CONFIG, gossipInterval: 0 }); // no gossip: the broadcast cannot go out
    d.learn('b');
    d.send({ type: 'leave', timeout: 1000 });
    const effects = d.send({ type: 'tick' }, 1000);
    expect(emitted(effects)).toContainEqual({ type: 'leaveResult', outcome: 'timeout' });
  });
});

describe('meta', () => {
  test('setMeta announces the next incarnation; over 512 bytes throws', () => {
    const d = new Driver();
    const effects = d.send({ type: 'setMeta', meta: Uint8Array.of(1, 2, 3) });
    expect(d.state.members.get('me')).toMatchObject({ incarnation: 2, meta: Uint8Array.of(1, 2, 3) });
    expect(emitted(effects).map((e) => e.type)).toEqual(['update']);
    expect(() => d.send({ type: 'setMeta', meta: new Uint8Array(513) })).toThrow(SwimConfigError);
  });
});

describe('push/pull', () => {
  const remote = (name: string, i: number, state: Member['state'], incarnation = 1) => ({
    name,
    addr: ip(i),
    port: PORT,
    incarnation,
    state,
    vsn: Uint8Array.of(1, 5, 2, 0, 0, 0),
  });

  test('an inbound push/pull is answered with our state first, then merged', () => {
    const d = new Driver();
    d.packet(3, alive('c', 3, 1));
    d.packet(3, { type: 'dead', node: 'c', incarnation: 1, from: 'x' });
    const effects = d.send({
      type: 'inboundStream',
      stream: 900,
      from: addr(2),
      message: {
        type: 'pushPull',
        join: true,
        userState: Uint8Array.of(42),
        nodes: [remote('b', 2, 'alive'), remote('c', 3, 'alive', 2), remote('e', 5, 'alive'), remote('f', 6, 'alive')],
      },
    });
    const reply = effects.find((e) => e.type === 'replyStream');
    expect(reply).toMatchObject({ stream: 900, message: { type: 'pushPull', join: true } });
    const replied = reply!.type === 'replyStream' && reply!.message!.type === 'pushPull' ? reply!.message!.nodes : [];
    expect(replied.map((n) => n.name).sort()).toEqual(['c', 'me']); // before the merge
    expect(d.stateOf('b')).toBe('alive');
    expect(d.stateOf('c')).toBe('alive'); // incarnation 2 brings it back
    expect(emitted(effects)).toContainEqual({ type: 'remoteState', userState: Uint8Array.of(42), join: true, from: addr(2) });
  });

  test('remote dead or suspect becomes only suspect from us; remote left becomes left', () => {
    const d = new Driver();
    d.learn('b', 'c', 'e');
    d.send({
      type: 'inboundStream',
      stream: 1,
      from: addr(2),
      message: {
        type: 'pushPull',
        join: false,
        userState: new Uint8Array(0),
        nodes: [remote('b', 2, 'dead'), remote('c', 3, 'suspect'), remote('e', 4, 'left')],
      },
    });
    expect(d.stateOf('b')).toBe('suspect');
    expect(d.state.suspicions.get('b')!.confirmedBy).toEqual(['me']);
    expect(d.stateOf('c')).toBe('suspect');
    expect(d.stateOf('e')).toBe('left');
  });

  test('join: one stream per address, merged replies, a result with the failures', () => {
    const d = new Driver();
    const effects = d.send({ type: 'join', targets: [addr(2), addr(3)] });
    const [s1, s2] = streams(effects);
    expect(s1).toMatchObject({ purpose: 'join', to: addr(2), deadline: LAN_CONFIG.tcpTimeout });
    expect(s1!.message).toMatchObject({ type: 'pushPull', join: true });
    d.send({
      type: 'streamReply',
      stream: s1!.stream,
      message: { type: 'pushPull', join: true, userState: new Uint8Array(0), nodes: [remote('b', 2, 'alive')] },
    });
    const done = d.send({ type: 'streamFailed', stream: s2!.stream, error: 'connection refused' });
    expect(emitted(done)).toContainEqual({
      type: 'joinResult',
      request: 1,
      joined: 1,
      errors: [{ to: addr(3), error: 'connection refused' }],
    });
    expect(d.stateOf('b')).toBe('alive');
  });

  test('incompatible protocol versions refuse the whole state', () => {
    const d = new Driver();
    const [s] = streams(d.send({ type: 'join', targets: [addr(2)] }));
    const reply = {
      type: 'pushPull' as const,
      join: true,
      userState: new Uint8Array(0),
      nodes: [{ ...remote('b', 2, 'alive'), vsn: Uint8Array.of(3, 5, 3, 0, 0, 0) }],
    };
    const effects = d.send({ type: 'streamReply', stream: s!.stream, message: reply });
    expect(reasons(effects)).toContain('protocolIncompatible');
    expect(emitted(effects)[0]).toMatchObject({ type: 'joinResult', joined: 0 });
    expect(d.state.members.has('b')).toBe(false);
  });

  test('a stream that never answers expires at its deadline', () => {
    const d = new Driver();
    d.send({ type: 'join', targets: [addr(2)] });
    const effects = d.advance(LAN_CONFIG.tcpTimeout);
    expect(emitted(effects)).toContainEqual({ type: 'joinResult', request: 1, joined: 0, errors: [{ to: addr(2), error: 'timeout' }] });
  });

  test('a stream ping is acked; a user stream message is handed over', () => {
    const d = new Driver();
    expect(d.send({ type: 'inboundStream', stream: 3, from: addr(2), message: { type: 'ping', seqNo: 8, node: 'me' } })).toContainEqual({
      type: 'replyStream',
      stream: 3,
      message: { type: 'ack', seqNo: 8 },
    });
    expect(
      emitted(d.send({ type: 'inboundStream', stream: 4, from: addr(2), message: { type: 'user', payload: Uint8Array.of(1) } })),
    ).toEqual([{ type: 'userMessage', payload: Uint8Array.of(1), from: addr(2) }]);
  });
});

describe('gossip and reaping', () => {
  test('pending broadcasts go to up to GossipNodes members, each at most transmitLimit times', () => {
    const d = new Driver();
    d.learn('b', 'c', 'd', 'e', 'f');
    const gossip = packets(d.advance(d.state.nextGossipAt)).filter((p) => p.reason === 'gossip');
    expect(gossip).toHaveLength(3);
    expect(new Set(gossip.map((p) => p.to.name)).size).toBe(3);
    // n = 6: limit 4 x ceil(log10 7) = 4; six alive messages queued (ourselves and five learned)
    // Gossip and piggybacking on pings share the transmit count.
    const later = packets(d.advanceAnswering(10_000));
    const sends = [...gossip, ...later].flatMap((p) => p.messages).filter((m) => m.type === 'alive' && m.node === 'b');
    expect(sends).toHaveLength(4);
  });

  test('user broadcasts ride along and arrive as user messages', () => {
    const d = new Driver();
    d.learn('b');
    d.send({ type: 'broadcast', payload: Uint8Array.of(7, 7) });
    const all = d.advance(2000).flatMap((e) => (e.type === 'sendPacket' ? e.messages : []));
    expect(all).toContainEqual({ type: 'user', payload: Uint8Array.of(7, 7) });
    expect(emitted(d.packet(2, { type: 'user', payload: Uint8Array.of(1) }))).toEqual([
      { type: 'userMessage', payload: Uint8Array.of(1), from: addr(2) },
    ]);
  });

  test('dead members are forgotten at a probe wrap after GossipToTheDeadTime', () => {
    const d = new Driver();
    d.learn('b', 'c');
    d.packet(2, { type: 'dead', node: 'b', incarnation: 1, from: 'c' });
    d.advance(LAN_CONFIG.gossipToTheDeadTime / 2);
    expect(d.state.members.has('b')).toBe(true);
    // keep c answering so the probe rounds stay quiet
    for (let t = d.now; t < 40_000;) {
      // Once b and c are both gone the node is alone and no probe comes due: the clock steps by an interval.
      d.advance(d.state.members.size > 1 ? d.state.nextProbeAt : d.now + LAN_CONFIG.probeInterval);
      t = d.now;
      if (d.state.probe) d.packet(3, { type: 'ack', seqNo: d.state.probe.seqNo });
    }
    expect(d.state.members.has('b')).toBe(false);
    expect(d.state.probeOrder).not.toContain('b');
  });
});
