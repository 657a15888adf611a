/**
 * One BFD session (RFC 5880, Asynchronous mode) as a reducer: step(state, event, { now, random }) returns the
 * next state, the effects for the shell to carry out (send a packet, set a timer, tell the client up/down), and
 * for a refused packet the drop reason. Pure and synchronous: time and jitter come in through the context, so a
 * test drives two sessions against each other packet by packet.
 *
 * Covered: the three-way handshake (6.2, 6.8.6), timer negotiation and jitter (6.8.2, 6.8.7), slow TX while not
 * Up (6.8.3), Poll Sequences when our intervals change (6.5, 6.8.3), answering the peer's Poll with Final
 * (6.8.7), the Detection Time (6.8.4), the Passive role (6.1), administrative stop with AdminDown (6.8.16), and
 * ceasing periodic packets when the peer asks for none (Required Min RX 0) or runs Demand mode.
 * Not implemented: our own Demand mode (6.6) and the Echo function (6.4): Required Min Echo RX is always 0, so
 * the peer never sends us Echo packets. Authentication (6.7): a packet with the A bit is refused.
 *
 * Times (`now`, deadlines) are milliseconds on the shell's clock; intervals are microseconds as on the wire.
 */
import { bfdDiagName, BfdDiag, type BfdControlPacket, type BfdState } from './bfd-packet';
import type { BfdDropReason } from './bfd-drop-reasons';
import type { BfdTimerConfig } from './bfd-profile';
import { advertisedDesiredMinTxUs, detectionTimeMs, INITIAL_REMOTE_MIN_RX_US, jitteredIntervalMs, transmitIntervalUs } from './bfd-timers';

export type BfdTimerName = 'transmit' | 'detect';

export interface BfdSessionState {
  readonly config: BfdTimerConfig;
  /** bfd.LocalDiscr: nonzero, unique on this endpoint. */
  readonly localDiscriminator: number;
  /** Started and not finished stopping. An inactive session sends nothing and accepts nothing. */
  readonly active: boolean;
  /** bfd.SessionState; AdminDown before start() and after stop(). */
  readonly state: BfdState;
  /** bfd.LocalDiag: why the state last changed. */
  readonly localDiag: number;
  readonly remoteState: BfdState;
  /** bfd.RemoteDiscr: 0 until heard, and again once a Detection Time passes in silence (6.8.1). */
  readonly remoteDiscriminator: number;
  /** bfd.RemoteMinRxInterval. */
  readonly remoteMinRxUs: number;
  /** The peer's last Desired Min TX (used in the Detection Time, 6.8.4). */
  readonly remoteDesiredMinTxUs: number;
  readonly remoteDetectMult: number;
  /** bfd.RemoteDemandMode. */
  readonly remoteDemand: boolean;
  /** bfd.DesiredMinTxInterval and bfd.RequiredMinRxInterval as advertised now. */
  readonly desiredMinTxUs: number;
  readonly requiredMinRxUs: number;
  /**
   * The Desired Min TX and Required Min RX in force for our own transmit interval and Detection Time. They differ
   * from the advertised ones only during a Poll Sequence: an increased TX and a reduced RX wait for its end (6.8.3).
   */
  readonly txBasisUs: number;
  readonly rxBasisUs: number;
  /** A Poll Sequence is under way: periodic packets carry P until a packet with F arrives (6.5). */
  readonly polling: boolean;
  /** The interval the pending transmission was scheduled with, to notice when negotiation changes it. */
  readonly scheduledIntervalUs: number | undefined;
  readonly lastTxAt: number | undefined;
  readonly lastRxAt: number | undefined;
  readonly transmitAt: number | undefined;
  readonly detectAt: number | undefined;
  /** After stop(): AdminDown is sent until then, so the peer learns of it (6.8.16). */
  readonly adminDownUntil: number | undefined;
}

export type BfdSessionEvent =
  | { readonly type: 'start' }
  /** AdminDown with `diag` (default 7, Administratively Down). */
  | { readonly type: 'stop'; readonly diag?: number }
  /** A packet the codec accepted and the endpoint matched to this session (TTL already checked). */
  | { readonly type: 'receive'; readonly packet: BfdControlPacket }
  /** A timer the shell set has fired; a stale or early one changes nothing. */
  | { readonly type: 'timer'; readonly timer: BfdTimerName }
  | { readonly type: 'configure'; readonly config: BfdTimerConfig };

export interface BfdStepContext {
  readonly now: number;
  /** Uniform in [0, 1): the jitter source (6.8.7). */
  readonly random: () => number;
}

export type BfdSessionEffect =
  | { readonly type: 'send'; readonly packet: BfdControlPacket; readonly why: 'periodic' | 'final' }
  /** (Re)arm the named timer at `at`, or cancel it (undefined). */
  | { readonly type: 'setTimer'; readonly timer: BfdTimerName; readonly at: number | undefined }
  | { readonly type: 'stateChange'; readonly from: BfdState; readonly to: BfdState; readonly diag: number; readonly reason: string }
  | { readonly type: 'up' }
  | {
      readonly type: 'down';
      readonly diag: number;
      readonly diagName: string;
      /** The peer went AdminDown: RFC 5882 section 3.2 says this is no path failure for the client. */
      readonly remoteAdminDown: boolean;
      /** Our own stop(). */
      readonly administrative: boolean;
    }
  /** The AdminDown transmissions after stop() are over; the session is inactive. */
  | { readonly type: 'stopped' };

export interface BfdStepResult {
  readonly state: BfdSessionState;
  readonly effects: readonly BfdSessionEffect[];
  /** Set when a 'receive' event's packet was refused. */
  readonly dropped?: BfdDropReason;
}

/** A session that has not started: AdminDown, silent. */
export function initialBfdSession(config: BfdTimerConfig, localDiscriminator: number): BfdSessionState {
  const desired = advertisedDesiredMinTxUs('AdminDown', config.desiredMinTxUs);
  return {
    config,
    localDiscriminator,
    active: false,
    state: 'AdminDown',
    localDiag: BfdDiag.noDiagnostic,
    remoteState: 'Down',
    remoteDiscriminator: 0,
    remoteMinRxUs: INITIAL_REMOTE_MIN_RX_US,
    remoteDesiredMinTxUs: 0,
    remoteDetectMult: 0,
    remoteDemand: false,
    desiredMinTxUs: desired,
    requiredMinRxUs: config.requiredMinRxUs,
    txBasisUs: desired,
    rxBasisUs: config.requiredMinRxUs,
    polling: false,
    scheduledIntervalUs: undefined,
    lastTxAt: undefined,
    lastRxAt: undefined,
    transmitAt: undefined,
    detectAt: undefined,
    adminDownUntil: undefined,
  };
}

type Draft = { -readonly [K in keyof BfdSessionState]: BfdSessionState[K] };

interface Step {
  readonly d: Draft;
  readonly effects: BfdSessionEffect[];
  readonly now: number;
  readonly random: () => number;
}

export function stepBfdSession(state: BfdSessionState, event: BfdSessionEvent, ctx: BfdStepContext): BfdStepResult {
  const s: Step = { d: { ...state }, effects: [], now: ctx.now, random: ctx.random };
  let dropped: BfdDropReason | undefined;
  switch (event.type) {
    case 'start':
      start(s);
      break;
    case 'stop':
      stop(s, event.diag ?? BfdDiag.administrativelyDown);
      break;
    case 'receive':
      dropped = receive(s, event.packet);
      break;
    case 'configure':
      s.d.config = event.config;
      updateAdvertised(s);
      reschedule(s);
      break;
    case 'timer':
      break; // fireDue below runs whatever is due
  }
  fireDue(s);
  if (state.transmitAt !== s.d.transmitAt) s.effects.push({ type: 'setTimer', timer: 'transmit', at: s.d.transmitAt });
  if (state.detectAt !== s.d.detectAt) s.effects.push({ type: 'setTimer', timer: 'detect', at: s.d.detectAt });
  return dropped === undefined ? { state: s.d, effects: s.effects } : { state: s.d, effects: s.effects, dropped };
}

/** The Detection Time this session would use now (ms), or undefined before the peer is heard. */
export function currentDetectionTimeMs(state: BfdSessionState): number | undefined {
  if (state.remoteDetectMult === 0) return undefined;
  return detectionTimeMs(state.remoteDetectMult, state.rxBasisUs, state.remoteDesiredMinTxUs);
}

// ------------------------------------------------------------------------------------------------- events

function start(s: Step): void {
  const { d } = s;
  if (d.active && d.state !== 'AdminDown') return;
  d.active = true;
  d.adminDownUntil = undefined;
  // 6.8.16: enabling a session sets it to Down.
  change(s, 'Down', BfdDiag.noDiagnostic, 'session started');
  reschedule(s);
}

function stop(s: Step, diag: number): void {
  const { d } = s;
  if (!d.active || d.state === 'AdminDown') return;
  change(s, 'AdminDown', diag, 'session stopped');
  d.detectAt = undefined;
  // 6.8.16: keep sending AdminDown for a Detection Time (as the peer computes it for us), so the peer learns of
  // it rather than timing out. A peer never heard from has nothing to learn.
  const interval = transmitIntervalUs(d.txBasisUs, d.remoteMinRxUs);
  const linger = d.remoteDiscriminator !== 0 && interval !== undefined ? (d.config.detectMult * interval) / 1000 : 0;
  d.adminDownUntil = s.now + linger;
  d.transmitAt = s.now;
  d.scheduledIntervalUs = undefined;
}

/** RFC 5880 section 6.8.6, after the codec's stateless checks. Returns the drop reason, if any. */
function receive(s: Step, p: BfdControlPacket): BfdDropReason | undefined {
  const { d } = s;
  if (!d.active) return 'notStarted';
  // No authentication is configured (BFDProfile has none): a packet with the A bit is discarded.
  if (p.auth !== undefined) return 'authenticationNotConfigured';
  if (p.yourDiscriminator !== 0 && p.yourDiscriminator !== d.localDiscriminator) return 'unknownDiscriminator';

  d.remoteDiscriminator = p.myDiscriminator;
  d.remoteState = p.state;
  d.remoteDemand = p.demand;
  d.remoteMinRxUs = p.requiredMinRxUs;
  d.remoteDesiredMinTxUs = p.desiredMinTxUs;
  d.remoteDetectMult = p.detectMult;
  if (d.polling && p.final) endPoll(s);
  if (d.state === 'AdminDown') {
    reschedule(s);
    return 'sessionAdminDown';
  }
  d.lastRxAt = s.now;
  d.detectAt = s.now + detectionTimeMs(d.remoteDetectMult, d.rxBasisUs, d.remoteDesiredMinTxUs);

  if (p.state === 'AdminDown') {
    if (d.state !== 'Down') change(s, 'Down', BfdDiag.neighborSignaledSessionDown, 'the peer signalled AdminDown');
  } else if (d.state === 'Down') {
    if (p.state === 'Down') change(s, 'Init', BfdDiag.noDiagnostic, 'the peer is Down: our packets reach it not yet');
    else if (p.state === 'Init') change(s, 'Up', BfdDiag.noDiagnostic, 'the peer is Init: it hears us');
  } else if (d.state === 'Init') {
    if (p.state === 'Init' || p.state === 'Up') change(s, 'Up', BfdDiag.noDiagnostic, `the peer is ${p.state}: it hears us`);
  } else if (p.state === 'Down') {
    change(s, 'Down', BfdDiag.neighborSignaledSessionDown, 'the peer signalled Down');
  }
  reschedule(s);
  // 6.8.7: a Poll is answered at once with Final, whatever the timers, state or Demand mode say.
  if (p.poll) s.effects.push({ type: 'send', packet: packetOf(d, true), why: 'final' });
  return undefined;
}

// ------------------------------------------------------------------------------------------------- timers

function fireDue(s: Step): void {
  const { d } = s;
  if (d.detectAt !== undefined && d.detectAt <= s.now) detectionExpired(s);
  if (d.transmitAt !== undefined && d.transmitAt <= s.now) transmit(s);
}

/** 6.8.4: a Detection Time without a valid packet. 6.8.1: bfd.RemoteDiscr is forgotten too. */
function detectionExpired(s: Step): void {
  const { d } = s;
  d.detectAt = undefined;
  d.remoteDiscriminator = 0;
  d.remoteDemand = false;
  if (d.state === 'Init' || d.state === 'Up') {
    change(s, 'Down', BfdDiag.controlDetectionTimeExpired, 'no packet from the peer for a Detection Time');
  }
  d.remoteState = 'Down';
  reschedule(s);
}

function transmit(s: Step): void {
  const { d } = s;
  if (d.state === 'AdminDown' && d.adminDownUntil !== undefined && s.now >= d.adminDownUntil) {
    finishStop(s);
    return;
  }
  const interval = periodicInterval(d);
  if (interval === undefined) {
    d.transmitAt = undefined;
    d.scheduledIntervalUs = undefined;
    return;
  }
  s.effects.push({ type: 'send', packet: packetOf(d, false), why: 'periodic' });
  d.lastTxAt = s.now;
  d.scheduledIntervalUs = interval;
  d.transmitAt = s.now + jitteredIntervalMs(interval, d.config.detectMult, s.random());
  if (d.state === 'AdminDown' && d.adminDownUntil !== undefined && d.transmitAt > d.adminDownUntil) {
    d.transmitAt = Math.max(d.adminDownUntil, s.now);
  }
}

function finishStop(s: Step): void {
  const { d } = s;
  d.active = false;
  d.transmitAt = undefined;
  d.scheduledIntervalUs = undefined;
  d.adminDownUntil = undefined;
  d.polling = false;
  s.effects.push({ type: 'stopped' });
}

/** The interval for periodic packets now, or undefined when none may be sent (6.8.7). */
function periodicInterval(d: Draft): number | undefined {
  if (!d.active) return undefined;
  // Passive role: nothing until the peer's discriminator is known (6.1, 6.8.7).
  if (d.config.passive && d.remoteDiscriminator === 0) return undefined;
  // Demand mode active on the peer: no periodic packets outside a Poll Sequence (6.8.7).
  if (d.remoteDemand && d.state === 'Up' && d.remoteState === 'Up' && !d.polling) return undefined;
  return transmitIntervalUs(d.txBasisUs, d.remoteMinRxUs);
}

/**
 * Keeps the next transmission consistent with the negotiated interval after anything changed: start sending
 * (at once when nothing was ever sent), stop, or move the pending packet to lastTx + the new interval.
 */
function reschedule(s: Step): void {
  const { d } = s;
  if (d.state === 'AdminDown' && d.adminDownUntil !== undefined) {
    if (d.transmitAt === undefined) d.transmitAt = s.now;
    return;
  }
  const interval = periodicInterval(d);
  if (interval === undefined) {
    d.transmitAt = undefined;
    d.scheduledIntervalUs = undefined;
    return;
  }
  if (d.transmitAt !== undefined && interval === d.scheduledIntervalUs) return;
  d.scheduledIntervalUs = interval;
  d.transmitAt =
    d.lastTxAt === undefined ? s.now : Math.max(s.now, d.lastTxAt + jitteredIntervalMs(interval, d.config.detectMult, s.random()));
}

// --------------------------------------------------------------------------------------- state and polls

function change(s: Step, to: BfdState, diag: number, reason: string): void {
  const { d } = s;
  const from = d.state;
  if (from === to) return;
  d.state = to;
  d.localDiag = diag;
  s.effects.push({ type: 'stateChange', from, to, diag, reason });
  if (to === 'Up') s.effects.push({ type: 'up' });
  if (from === 'Up') {
    s.effects.push({
      type: 'down',
      diag,
      diagName: bfdDiagName(diag),
      remoteAdminDown: diag === BfdDiag.neighborSignaledSessionDown && d.remoteState === 'AdminDown',
      administrative: to === 'AdminDown',
    });
  }
  updateAdvertised(s);
}

/**
 * Sets the advertised intervals for the state and configuration (6.8.3: at least 1 s TX while not Up). A change
 * while Up starts a Poll Sequence; until it ends, an increased TX and a reduced RX are not yet used (6.8.3).
 */
function updateAdvertised(s: Step): void {
  const { d } = s;
  const desired = advertisedDesiredMinTxUs(d.state, d.config.desiredMinTxUs);
  const required = d.config.requiredMinRxUs;
  const changed = desired !== d.desiredMinTxUs || required !== d.requiredMinRxUs;
  if (d.state === 'Up' && changed) {
    d.txBasisUs = Math.min(d.txBasisUs, desired);
    d.rxBasisUs = Math.max(d.rxBasisUs, required);
    d.polling = true;
  } else if (d.state !== 'Up') {
    d.txBasisUs = desired;
    d.rxBasisUs = required;
    d.polling = false;
  }
  d.desiredMinTxUs = desired;
  d.requiredMinRxUs = required;
}

/** A packet with Final ends our Poll Sequence: the new intervals take full effect (6.5, 6.8.3). */
function endPoll(s: Step): void {
  const { d } = s;
  d.polling = false;
  d.txBasisUs = d.desiredMinTxUs;
  d.rxBasisUs = d.requiredMinRxUs;
}

/** The Control packet this session sends now (6.8.7). */
function packetOf(d: Draft, final: boolean): BfdControlPacket {
  return {
    diag: d.localDiag,
    state: d.state,
    poll: !final && d.polling,
    final,
    controlPlaneIndependent: false,
    demand: false,
    multipoint: false,
    detectMult: d.config.detectMult,
    myDiscriminator: d.localDiscriminator,
    yourDiscriminator: d.remoteDiscriminator,
    desiredMinTxUs: d.desiredMinTxUs,
    requiredMinRxUs: d.requiredMinRxUs,
    requiredMinEchoRxUs: 0,
  };
}
