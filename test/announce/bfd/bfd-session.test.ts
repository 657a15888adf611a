/**
 * The BFD session reducer (RFC 5880): handshake, detection, signalled down, passive role, slow TX, jitter, Poll
 * Sequences and AdminDown, driven through BfdSim (two reducers, a virtual clock, the real codec on the wire) or
 * packet by packet.
 */
import { describe, expect, it } from 'vitest';
import { BfdDiag, decodeBfdControl, type BfdControlPacket } from '../../../src/announce/bfd/bfd-packet';
import { initialBfdSession, stepBfdSession, type BfdSessionEffect, type BfdSessionState } from '../../../src/announce/bfd/bfd-session';
import { BfdSim, DEFAULT_TIMERS, peerPacket } from './bfd-sim';

const ctx = (now: number, random = 0) => ({ now, random: () => random });

function states(sim: BfdSim, node: 'a' | 'b'): string[] {
  return sim.effects(node, 'stateChange').map((r) => (r.effect as Extract<BfdSessionEffect, { type: 'stateChange' }>).to);
}

function started(config = DEFAULT_TIMERS, now = 0): BfdSessionState {
  return stepBfdSession(initialBfdSession(config, 0x1234), { type: 'start' }, ctx(now)).state;
}

function upSim(): BfdSim {
  const sim = new BfdSim();
  sim.step('a', { type: 'start' });
  sim.step('b', { type: 'start' });
  sim.runUntilTrue(() => sim.states.a.state === 'Up' && sim.states.b.state === 'Up', 10_000);
  sim.runUntil(sim.now + 2_000); // the Poll Sequences after Up have finished
  return sim;
}

describe('three-way handshake (RFC 5880 sections 6.2, 6.8.6)', () => {
  it('Down + Down -> Init, Down + Init -> Up, Init + Init or Up -> Up', () => {
    const s = started();
    expect(s.state).toBe('Down');
    const init = stepBfdSession(s, { type: 'receive', packet: peerPacket({ state: 'Down' }) }, ctx(10));
    expect(init.state.state).toBe('Init');
    expect(init.effects.filter((e) => e.type === 'up')).toEqual([]);
    for (const remote of ['Init', 'Up'] as const) {
      const up = stepBfdSession(init.state, { type: 'receive', packet: peerPacket({ state: remote, yourDiscriminator: 0x1234 }) }, ctx(20));
      expect(up.state.state).toBe('Up');
      expect(up.effects.filter((e) => e.type === 'up')).toHaveLength(1);
    }
    const direct = stepBfdSession(s, { type: 'receive', packet: peerPacket({ state: 'Init', yourDiscriminator: 0x1234 }) }, ctx(10));
    expect(direct.state.state).toBe('Up');
    // Down + Up from the peer is not a handshake step: stay Down.
    const stale = stepBfdSession(s, { type: 'receive', packet: peerPacket({ state: 'Up', yourDiscriminator: 0x1234 }) }, ctx(10));
    expect(stale.state.state).toBe('Down');
  });

  it('two sessions reach Up whichever side starts first, each through Init or straight from Down', () => {
    for (const [first, second] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      const sim = new BfdSim();
      sim.step(first, { type: 'start' });
      sim.runUntil(2_500); // the first side talks alone for a while
      expect(sim.states[first].state).toBe('Down');
      sim.step(second, { type: 'start' });
      const upAt = sim.runUntilTrue(() => sim.states.a.state === 'Up' && sim.states.b.state === 'Up', 5_000);
      // Slow TX (1 s) before Up: the handshake takes at most about two slow intervals after the second start.
      expect(upAt - 2_500).toBeLessThanOrEqual(2_100);
      for (const node of ['a', 'b'] as const) {
        const path = states(sim, node);
        expect(path[0]).toBe('Down');
        expect(path.at(-1)).toBe('Up');
        expect([
          ['Down', 'Init', 'Up'],
          ['Down', 'Up'],
        ]).toContainEqual(path);
      }
      // The side that started first heard the other's Down, went Init, and its Init took the other straight Up.
      expect(states(sim, first)).toEqual(['Down', 'Init', 'Up']);
      expect(states(sim, second)).toEqual(['Down', 'Up']);
      expect(sim.effects('a', 'up')).toHaveLength(1);
      expect(sim.effects('b', 'up')).toHaveLength(1);
    }
  });

  it('each side learns the other discriminator and echoes it', () => {
    const sim = upSim();
    expect(sim.states.a.remoteDiscriminator).toBe(0xb2);
    expect(sim.states.b.remoteDiscriminator).toBe(0xa1);
    const last = sim.sent('a').at(-1)!.packet;
    expect(last).toMatchObject({ myDiscriminator: 0xa1, yourDiscriminator: 0xb2, state: 'Up', requiredMinEchoRxUs: 0, demand: false });
  });
});

describe('timers (RFC 5880 sections 6.8.3, 6.8.4, 6.8.7)', () => {
  it('sends at most once a second, advertising 1 s, while not Up; at the negotiated 300 ms once Up', () => {
    const sim = new BfdSim();
    sim.step('a', { type: 'start' });
    sim.runUntil(5_000);
    const lonely = sim.sent('a');
    expect(lonely).toHaveLength(6); // t = 0, 1000, ... 5000
    expect(lonely.every((p) => p.packet.desiredMinTxUs === 1_000_000 && p.packet.state === 'Down')).toBe(true);

    const up = upSim();
    const t0 = up.now;
    up.runUntil(t0 + 3_000);
    const periodic = up.sent('a').filter((p) => p.at > t0 && p.why === 'periodic');
    expect(periodic.length).toBe(10);
    const gaps = periodic.slice(1).map((p, i) => p.at - periodic[i]!.at);
    expect(gaps.every((g) => g === 300)).toBe(true);
    expect(periodic.every((p) => p.packet.desiredMinTxUs === 300_000)).toBe(true);
  });

  it('the interval is the larger of our Desired Min TX and the peer Required Min RX', () => {
    const sim = new BfdSim({}, { requiredMinRxUs: 700_000 });
    sim.step('a', { type: 'start' });
    sim.step('b', { type: 'start' });
    sim.runUntilTrue(() => sim.states.a.state === 'Up' && sim.states.b.state === 'Up', 10_000);
    sim.runUntil(sim.now + 2_000);
    const t0 = sim.now;
    sim.runUntil(t0 + 2_800);
    const gaps = sim
      .sent('a')
      .filter((p) => p.at > t0 && p.why === 'periodic')
      .map((p) => p.at);
    expect(gaps.slice(1).map((at, i) => at - gaps[i]!)).toEqual([700, 700, 700]);
  });

  it('jitter takes 0-25% off each interval; with Detect Mult 1 the interval stays within 75-90%', () => {
    // The first packet goes out at start; the next one a (jittered) slow interval of 1 s later.
    const fullJitter = stepBfdSession(initialBfdSession(DEFAULT_TIMERS, 1), { type: 'start' }, ctx(0, 0.999999)).state.transmitAt!;
    const noJitter = stepBfdSession(initialBfdSession(DEFAULT_TIMERS, 1), { type: 'start' }, ctx(0, 0)).state.transmitAt!;
    expect(noJitter).toBe(1000);
    expect(fullJitter).toBeGreaterThan(750);
    expect(fullJitter).toBeLessThan(751);
    const single = (r: number) =>
      stepBfdSession(initialBfdSession({ ...DEFAULT_TIMERS, detectMult: 1 }, 1), { type: 'start' }, ctx(0, r)).state.transmitAt!;
    expect(single(0)).toBe(750);
    expect(single(0.999999)).toBeCloseTo(900, 0);
  });

  it('sends nothing periodic when the peer asks for none (Required Min RX 0), but still answers a Poll', () => {
    const s = started();
    const r = stepBfdSession(s, { type: 'receive', packet: peerPacket({ requiredMinRxUs: 0, poll: true }) }, ctx(5));
    expect(r.state.transmitAt).toBeUndefined();
    const sends = r.effects.filter((e) => e.type === 'send');
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({ why: 'final', packet: { final: true, poll: false, state: 'Init' } });
  });
});

describe('detection (RFC 5880 section 6.8.4)', () => {
  it('a silent peer is declared down after Detect Mult x the agreed interval, with diag 1', () => {
    const sim = upSim();
    sim.dead.add('b'); // b crashes: it sends nothing more
    const lastHeard = sim.states.a.lastRxAt!;
    const downAt = sim.runUntilTrue(() => sim.states.a.state === 'Down', 5_000);
    expect(downAt - lastHeard).toBe(900); // 3 x max(300 ms, 300 ms)
    const down = sim.effects('a', 'down');
    expect(down).toHaveLength(1);
    expect(down[0]!.effect).toMatchObject({
      diag: BfdDiag.controlDetectionTimeExpired,
      diagName: 'controlDetectionTimeExpired',
      remoteAdminDown: false,
      administrative: false,
    });
    // The peer's discriminator is forgotten, and a' goes back to slow TX.
    expect(sim.states.a.remoteDiscriminator).toBe(0);
    sim.runUntil(sim.now + 3_000);
    const after = sim.sent('a').filter((p) => p.at > downAt);
    expect(after.every((p) => p.packet.state === 'Down' && p.packet.diag === 1 && p.packet.yourDiscriminator === 0)).toBe(true);
    expect(after.at(-1)!.at - after.at(-2)!.at).toBe(1000);
  });

  it('uses the peer Detect Mult and the larger of our Required Min RX and its Desired Min TX', () => {
    const sim = new BfdSim({ requiredMinRxUs: 200_000 }, { desiredMinTxUs: 500_000, detectMult: 5 });
    sim.step('a', { type: 'start' });
    sim.step('b', { type: 'start' });
    sim.runUntilTrue(() => sim.states.a.state === 'Up' && sim.states.b.state === 'Up', 10_000);
    sim.runUntil(sim.now + 3_000);
    sim.cut.add('b');
    const lastHeard = sim.states.a.lastRxAt!;
    const downAt = sim.runUntilTrue(() => sim.states.a.state === 'Down', 10_000);
    expect(downAt - lastHeard).toBe(2_500); // 5 x max(200 ms, 500 ms)
  });
});

describe('the peer signals down (RFC 5880 section 6.8.6)', () => {
  it('Up + a Down packet -> Down with diag 3, a path failure for the client', () => {
    const sim = upSim();
    const r = stepBfdSession(
      sim.states.a,
      { type: 'receive', packet: peerPacket({ state: 'Down', myDiscriminator: 0xb2, yourDiscriminator: 0xa1, diag: 1 }) },
      ctx(sim.now),
    );
    expect(r.state.state).toBe('Down');
    expect(r.state.localDiag).toBe(BfdDiag.neighborSignaledSessionDown);
    expect(r.effects.find((e) => e.type === 'down')).toMatchObject({ diag: 3, remoteAdminDown: false, administrative: false });
  });

  it('Up + AdminDown -> Down with diag 3, flagged as the peer administrative choice (RFC 5882 section 3.2)', () => {
    const sim = upSim();
    sim.step('b', { type: 'stop' });
    sim.runUntilTrue(() => sim.states.a.state === 'Down', 2_000);
    expect(sim.effects('a', 'down').map((r) => r.effect)).toEqual([
      { type: 'down', diag: 3, diagName: 'neighborSignaledSessionDown', remoteAdminDown: true, administrative: false },
    ]);
    expect(sim.effects('b', 'down').map((r) => r.effect)).toEqual([
      { type: 'down', diag: 7, diagName: 'administrativelyDown', remoteAdminDown: false, administrative: true },
    ]);
  });
});

describe('administrative stop (RFC 5880 section 6.8.16)', () => {
  it('sends AdminDown with diag 7 for a Detection Time, then stops and reports it', () => {
    const sim = upSim();
    const stopAt = sim.now;
    sim.step('b', { type: 'stop' });
    sim.runUntil(stopAt + 10_000);
    const admin = sim.sent('b').filter((p) => p.at >= stopAt);
    expect(admin.length).toBeGreaterThanOrEqual(2);
    expect(admin.every((p) => p.packet.state === 'AdminDown' && p.packet.diag === 7)).toBe(true);
    const stopped = sim.effects('b', 'stopped');
    expect(stopped).toHaveLength(1);
    // 3 x the 1 s interval advertised once not Up.
    expect(stopped[0]!.at - stopAt).toBe(3_000);
    expect(admin.at(-1)!.at).toBeLessThan(stopped[0]!.at);
    expect(sim.states.b.active).toBe(false);
    // Packets are refused once stopped; a still lingering session updates its view but drops them.
    const r = stepBfdSession(sim.states.b, { type: 'receive', packet: peerPacket({ myDiscriminator: 0xa1 }) }, ctx(sim.now));
    expect(r.dropped).toBe('notStarted');
  });

  it('stops at once when the peer was never heard', () => {
    const r = stepBfdSession(started(), { type: 'stop' }, ctx(50));
    expect(r.effects.map((e) => e.type)).toEqual(['stateChange', 'stopped', 'setTimer']);
    expect(r.state.active).toBe(false);
  });
});

describe('passive role (RFC 5880 sections 6.1, 6.8.7; BFDProfile.passiveMode)', () => {
  it('sends nothing until the peer is heard, then answers and comes Up', () => {
    const sim = new BfdSim({ passive: true });
    sim.step('a', { type: 'start' });
    sim.runUntil(5_000);
    expect(sim.sent('a')).toEqual([]);
    sim.step('b', { type: 'start' });
    sim.runUntilTrue(() => sim.states.a.state === 'Up' && sim.states.b.state === 'Up', 5_000);
    const first = sim.sent('a')[0]!;
    expect(first.at).toBe(5_001); // the moment b's first packet arrived
    expect(first.packet).toMatchObject({ state: 'Init', yourDiscriminator: 0xb2 });
  });

  it('falls silent again once the peer has been gone for a Detection Time', () => {
    const sim = new BfdSim({ passive: true });
    sim.step('a', { type: 'start' });
    sim.step('b', { type: 'start' });
    sim.runUntilTrue(() => sim.states.a.state === 'Up', 5_000);
    sim.dead.add('b');
    const downAt = sim.runUntilTrue(() => sim.states.a.state === 'Down', 5_000);
    sim.runUntil(downAt + 5_000);
    expect(sim.sent('a').filter((p) => p.at > downAt)).toEqual([]);
  });

  it('two passive sides never start', () => {
    const sim = new BfdSim({ passive: true }, { passive: true });
    sim.step('a', { type: 'start' });
    sim.step('b', { type: 'start' });
    sim.runUntil(10_000);
    expect(sim.log.filter((r) => r.effect.type === 'send')).toEqual([]);
  });
});

describe('Poll Sequence (RFC 5880 sections 6.5, 6.8.3)', () => {
  it('going Up polls with the faster interval; the peer answers Final at once; P stops after it', () => {
    const sim = new BfdSim();
    sim.step('a', { type: 'start' });
    sim.step('b', { type: 'start' });
    const upAt = sim.runUntilTrue(() => sim.states.a.state === 'Up' && sim.states.b.state === 'Up', 10_000);
    sim.runUntil(upAt + 2_000);
    const polls = sim.sent('a').filter((p) => p.packet.poll);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls.every((p) => p.packet.state === 'Up' && p.packet.desiredMinTxUs === 300_000 && !p.packet.final)).toBe(true);
    // b answers each poll in the same instant it arrives (no waiting for its timer).
    const finals = sim.sent('b').filter((p) => p.packet.final);
    expect(finals.length).toBe(polls.length);
    polls.forEach((p, i) => expect(finals[i]!.at).toBe(p.at + sim.delayMs));
    expect(sim.states.a.polling).toBe(false);
    const lastPoll = polls.at(-1)!.at;
    expect(
      sim
        .sent('a')
        .filter((p) => p.at > lastPoll + 2 * sim.delayMs)
        .every((p) => !p.packet.poll),
    ).toBe(true);
  });

  it('a slower TX is advertised at once with P, used only after Final', () => {
    const sim = upSim();
    const t0 = sim.now;
    sim.cut.add('b'); // b's first Final is lost
    sim.step('a', { type: 'configure', config: { ...DEFAULT_TIMERS, desiredMinTxUs: 600_000 } });
    expect(sim.states.a.polling).toBe(true);
    sim.runUntil(t0 + 250);
    sim.cut.delete('b');
    sim.runUntilTrue(() => !sim.states.a.polling, 1_000);
    const t1 = sim.now;
    const during = sim.sent('a').filter((p) => p.at > t0);
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(during.every((p) => p.packet.poll && p.packet.desiredMinTxUs === 600_000)).toBe(true);
    const gaps = during.slice(1).map((p, i) => p.at - during[i]!.at);
    expect(gaps.every((g) => g === 300)).toBe(true); // still the old interval
    sim.runUntil(t1 + 3_000);
    const after = sim.sent('a').filter((p) => p.at > t1 + 1 && p.why === 'periodic');
    const gapsAfter = after.slice(1).map((p, i) => p.at - after[i]!.at);
    expect(gapsAfter.length).toBeGreaterThan(2);
    expect(sim.states.a.state).toBe('Up');
    expect(gapsAfter.every((g) => g === 600)).toBe(true);
    expect(after.every((p) => !p.packet.poll)).toBe(true);
  });

  it('a reduced Required Min RX keeps the old Detection Time until Final', () => {
    const sim = upSim();
    sim.cut.add('b');
    const heard = sim.states.a.lastRxAt!;
    sim.step('a', { type: 'configure', config: { ...DEFAULT_TIMERS, requiredMinRxUs: 100_000 } });
    expect(sim.states.a.requiredMinRxUs).toBe(100_000);
    expect(sim.states.a.rxBasisUs).toBe(300_000);
    const downAt = sim.runUntilTrue(() => sim.states.a.state === 'Down', 5_000);
    expect(downAt - heard).toBe(900);
  });

  it('a Poll from the peer is answered with Final and never with P and F together', () => {
    const s = started();
    const up = stepBfdSession(s, { type: 'receive', packet: peerPacket({ state: 'Init', yourDiscriminator: 0x1234 }) }, ctx(10)).state;
    expect(up.polling).toBe(true); // our own poll, from going Up
    const r = stepBfdSession(up, { type: 'receive', packet: peerPacket({ state: 'Up', yourDiscriminator: 0x1234, poll: true }) }, ctx(20));
    const finals = r.effects.filter((e) => e.type === 'send' && e.why === 'final');
    expect(finals).toHaveLength(1);
    expect(finals[0]).toMatchObject({ packet: { final: true, poll: false } });
  });
});

describe('refused packets (RFC 5880 section 6.8.6)', () => {
  it('refuses authentication, a foreign Your Discriminator, and anything before start', () => {
    const s = started();
    expect(
      stepBfdSession(s, { type: 'receive', packet: peerPacket({ auth: { type: 1, data: new Uint8Array([1, 65]) } }) }, ctx(1)).dropped,
    ).toBe('authenticationNotConfigured');
    expect(stepBfdSession(s, { type: 'receive', packet: peerPacket({ yourDiscriminator: 99, state: 'Init' }) }, ctx(1)).dropped).toBe(
      'unknownDiscriminator',
    );
    const fresh = initialBfdSession(DEFAULT_TIMERS, 5);
    expect(stepBfdSession(fresh, { type: 'receive', packet: peerPacket() }, ctx(1)).dropped).toBe('notStarted');
    // A refused packet changes nothing.
    const r = stepBfdSession(s, { type: 'receive', packet: peerPacket({ yourDiscriminator: 99, state: 'Init' }) }, ctx(1));
    expect(r.state).toEqual(s);
  });

  it('a stale or early timer changes nothing', () => {
    const s = started();
    const r = stepBfdSession(s, { type: 'timer', timer: 'transmit' }, ctx(s.transmitAt! - 1));
    expect(r.effects).toEqual([]);
    expect(r.state).toEqual(s);
  });
});

describe("FRR bfdd's own packets (captured in the lab, see bfd-packet.test.ts)", () => {
  const frr = (hex: string): BfdControlPacket => {
    const d = decodeBfdControl(Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex')));
    if (!d.ok) throw new Error(d.reason);
    return d.value;
  };
  // Our discriminator in that capture was 0xa9d958fe.
  const init = frr('21 80 03 18  143da796  a9d958fe  000f4240  000f4240  0000c350');
  const upPoll = frr('20 e0 03 18  143da796  a9d958fe  000493e0  000493e0  0000c350');

  it('its Init takes a Down session Up; its Poll is answered with Final; its 300 ms give a 900 ms Detection Time', () => {
    const s = stepBfdSession(initialBfdSession(DEFAULT_TIMERS, 0xa9d958fe), { type: 'start' }, ctx(0)).state;
    const up = stepBfdSession(s, { type: 'receive', packet: init }, ctx(100));
    expect(up.state.state).toBe('Up');
    expect(up.state.detectAt).toBe(100 + 3_000); // FRR still advertises 1 s while not Up
    const polled = stepBfdSession(up.state, { type: 'receive', packet: upPoll }, ctx(200));
    expect(polled.effects.filter((e) => e.type === 'send')).toEqual([
      {
        type: 'send',
        why: 'final',
        packet: expect.objectContaining({ state: 'Up', final: true, poll: false, yourDiscriminator: 0x143da796, desiredMinTxUs: 300_000 }),
      },
    ]);
    expect(polled.state.detectAt).toBe(200 + 900);
  });
});
