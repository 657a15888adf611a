// src/announce/bfd: single-hop BFD (RFC 5880, 5881) for the built-in BGP speaker. Pure: the packet codec, the
// timer arithmetic and the session reducer. Not pure: BfdEndpoint (one UDP 3784 socket per local address) and
// BfdSession (one peer: its transmit socket and timers). A BFD failure takes the BGP session down (RFC 5882).
export { BfdEndpoint, type BfdEndpointCounters, type BfdEndpointOptions, type BfdSessionOptions } from './bfd-endpoint';
export { BfdSession, type BfdDownEvent, type BfdSessionCounters, type BfdSessionEvents, type BfdStateChange } from './bfd-peer';
export { BFD_STATES, BfdDiag, bfdDiagName, decodeBfdControl, encodeBfdControl, type BfdControlPacket, type BfdState } from './bfd-packet';
export { BfdDropReason, type BfdDecoded } from './bfd-drop-reasons';
export { BfdError, BFD_ERROR_CODES, type BfdErrorCode } from './bfd-error';
export { bfdTimersFromProfile, type BfdProfileInput, type BfdTimerConfig } from './bfd-profile';
export {
  currentDetectionTimeMs,
  initialBfdSession,
  stepBfdSession,
  type BfdSessionEffect,
  type BfdSessionEvent,
  type BfdSessionState,
  type BfdStepResult,
} from './bfd-session';
export { BFD_CONTROL_PORT, BFD_SOURCE_PORT_MAX, BFD_SOURCE_PORT_MIN, BFD_TTL, type TtlCheck } from './bfd-socket';
