/**
 * memberlist-compatible SWIM + Lifeguard as a pure reducer (docs/memberlist-wire.md sections 2, 3, 7, 8).
 *
 *   let { state, effects, nextDeadline } = createSwimNode({ name, addr, port, config: LAN_CONFIG, seed, now });
 *   ({ state, effects, nextDeadline } = step(state, event, now));
 *
 * What the driver (transport + timer loop) owns, around the reducer:
 * - Time: call step(state, { type: 'tick' }, now) at nextDeadline (sleep exactly until then, or until a packet
 *   or stream arrives). `now` is milliseconds from any monotonic clock and must never go backwards.
 * - Effects, in order: sendPacket (encode; several messages make one compound; CRC when
 *   recipientProtocolMax >= 5; compression/encryption/label as configured; UDP), openStream (TCP dial, write,
 *   read one reply, report streamReply or streamFailed before `deadline`), replyStream (write the reply on the
 *   inbound stream, or just close it), emit (public events), log (structured, with a stable reason).
 * - Input: decode packets and feed { type: 'packet', from, messages } (a compound flattened in order; bad
 *   packets dropped and counted by the codec); accept streams and feed inboundStream with a driver-chosen id.
 * - Names: resolve `name/host:port` join addresses to raw IP bytes before the join event; advertise the address
 *   bytes exactly as peers should see them (4 bytes for a specific IPv4 bind).
 * - The memory network (memory-network.ts) is such a driver, for tests.
 */
export * from './address';
export * from './broadcast-queue';
export * from './config';
export * from './effects';
export * from './errors';
export * from './events';
export * from './member-table';
export * from './members';
export { confirmedSuspects, isConfirmed } from './confirmed-suspects';
export { encodedSize } from './message-size';
export { seedRng, type RngState } from './random';
export * from './state';
export { suspicionTimeoutAfter, startSuspicion, confirmSuspicion, type Suspicion } from './suspicion';
export { applyHealthDelta, failedProbeDelta, scaleByHealth, HealthDelta } from './awareness';
export { createSwimNode, step, type StepResult, type SwimNodeOptions } from './swim-node';
export { nextDeadline } from './timers';
