/**
 * memberlist-compatible SWIM + Lifeguard as a pure reducer (memberlist-wire.md sections 2, 3, 7, 8).
 */
export * from './address';
export * from './broadcast-queue';
export * from './config';
export * from './effects';
export * from './errors';
export * from './events';
export * from './member-table';
export * from './members';
export { encodedSize } from './message-size';
export { seedRng, type RngState } from './random';
export * from './state';
export { suspicionTimeoutAfter, startSuspicion, confirmSuspicion, type Suspicion } from './suspicion';
export { applyHealthDelta, failedProbeDelta, scaleByHealth, HealthDelta } from './awareness';
export { createSwimNode, step, MAX_QUEUED_USER_BROADCASTS, type StepResult, type SwimNodeOptions } from './swim-node';
export { nextDeadline } from './timers';
