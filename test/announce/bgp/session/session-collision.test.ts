/**
 * Connection collisions (RFC 4271 6.8, RFC 6286 2.3, RFC 4724 4.2) in the pure session state machine: which of two
 * connections to the same peer survives, and what the other one is told (Cease / Connection Collision Resolution).
 */
import { describe, expect, it } from 'vitest';
import { FsmRun, fsmConfig, LOCAL_ID, peerOpen, PEER_ASN, sessionIn } from './fsm-harness';

const keepalive = { type: 'keepalive' } as const;

describe('session FSM: connection collisions (RFC 4271 6.8)', () => {
  /** We dialed (out-1) and the peer dialed us (in-1); both sent OPEN; the peer's OPEN arrived on out-1 first. */
  function collide(localId: string, peerId: string, localAsn = 64500, peerAsn = PEER_ASN): FsmRun {
    const run = new FsmRun(fsmConfig({ passive: true, peerAsn: { asn: peerAsn } }, { routerId: localId, asn: localAsn }));
    run.step({ type: 'start' });
    run.step({ type: 'tcpConnected', conn: 'out-1' });
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    expect(run.state.connections.map((c) => `${c.id} ${c.phase}`)).toEqual(['out-1 OpenSent', 'in-1 OpenSent']);
    run.step({ type: 'message', conn: 'out-1', message: peerOpen({ bgpIdentifier: peerId }, peerAsn) });
    run.step({ type: 'message', conn: 'in-1', message: peerOpen({ bgpIdentifier: peerId }, peerAsn) });
    return run;
  }

  it('keeps the connection the peer opened when its identifier is higher', () => {
    const run = collide(LOCAL_ID, '10.0.0.2');
    expect(run.summary).toEqual([
      'send out-1 notification 6/7',
      'clearTimer hold out-1',
      'clearTimer keepalive out-1',
      'close out-1',
      'send in-1 keepalive',
      'setTimer hold in-1 +90000',
      'setTimer keepalive in-1 +30000',
    ]);
    expect(run.state.connections.map((c) => `${c.id} ${c.phase}`)).toEqual(['in-1 OpenConfirm']);
    expect(run.last.reason).toBe('collisionResolved');
    run.step({ type: 'message', conn: 'in-1', message: keepalive });
    expect(run.summary).toContain('up in-1');
  });

  it('keeps the connection we opened when our identifier is higher (compared as unsigned numbers)', () => {
    const run = collide('192.168.0.1', '10.0.0.2');
    expect(run.summary).toEqual(['send in-1 notification 6/7', 'clearTimer hold in-1', 'close in-1']);
    expect(run.state.connections.map((c) => `${c.id} ${c.phase}`)).toEqual(['out-1 OpenConfirm']);
    expect(run.last.reason).toBe('collisionResolved');
  });

  it('with equal identifiers between ASes, keeps the connection of the larger ASN (RFC 6286 2.3)', () => {
    expect(collide('10.0.0.7', '10.0.0.7', 65010, 65001).state.connections.map((c) => c.id)).toEqual(['out-1']);
    expect(collide('10.0.0.7', '10.0.0.7', 65001, 65010).state.connections.map((c) => c.id)).toEqual(['in-1']);
  });

  it('closes a new connection when the session is already Established', () => {
    const run = sessionIn('Established', fsmConfig({ passive: true }));
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    run.step({ type: 'message', conn: 'in-1', message: peerOpen() });
    expect(run.summary).toEqual(['send in-1 notification 6/7', 'clearTimer hold in-1', 'close in-1']);
    expect(run.last.reason).toBe('collisionWithEstablished');
    expect(run.state.phase).toBe('Established');
  });

  it("takes a new OPEN beside an Established graceful-restart session as the peer's restart (RFC 4724 4.2)", () => {
    const gr = {
      code: 'gracefulRestart' as const,
      restartFlags: 0x8,
      restartTimeSeconds: 120,
      families: [{ afi: 1, safi: 1, flags: 0x80 }],
    };
    const config = fsmConfig({ passive: true }, { gracefulRestart: { restartTimeS: 120 } });
    const open = peerOpen({ capabilities: [...peerOpen().capabilities, gr] });
    const run = sessionIn('Established', config, open);
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    run.step({ type: 'message', conn: 'in-1', message: open });
    expect(run.summary).toEqual([
      'clearTimer hold out-1',
      'clearTimer keepalive out-1',
      'close out-1',
      'down peerRestarted',
      'send in-1 keepalive',
      'setTimer hold in-1 +90000',
      'setTimer keepalive in-1 +30000',
    ]);
    run.step({ type: 'message', conn: 'in-1', message: keepalive });
    expect(run.last.effects.find((e) => e.type === 'up')).toMatchObject({
      negotiated: { gracefulRestart: { restarting: true, forwardingPreserved: ['ipv4'] } },
    });
  });

  it('closes the other connections once one is Established', () => {
    const run = new FsmRun(fsmConfig({ passive: true }));
    run.step({ type: 'start' });
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    run.step({ type: 'message', conn: 'in-1', message: peerOpen() });
    run.step({ type: 'message', conn: 'in-1', message: keepalive });
    expect(run.summary).toEqual(['setTimer hold in-1 +90000', 'close out-1', 'up in-1']);
    expect(run.state.connections.map((c) => c.id)).toEqual(['in-1']);
  });

  it('replaces an inbound connection the peer abandoned with its new one', () => {
    const run = new FsmRun(fsmConfig({ passive: true, dialOut: false }));
    run.step({ type: 'start' });
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    run.step({ type: 'tcpAccepted', conn: 'in-2' });
    expect(run.summary).toEqual(['clearTimer hold in-1', 'close in-1', 'send in-2 open', 'setTimer hold in-2 +240000']);
    expect(run.last.reason).toBe('inboundReplaced');
  });
});
