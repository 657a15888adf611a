export * from './runtime';
export { MachineDriver, type MachineStep, type MachineDriverOptions } from './machine-driver';
export { NetworkError } from './network-error';
export { realRuntime, REAL_RUNTIME, REAL_BACKGROUND_RUNTIME } from './real-runtime';
