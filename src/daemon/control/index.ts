// src/daemon/control: the control API on a unix socket (server shell, pure routes and filter, the snapshot type).
export * from './control-snapshot';
export * from './control-errors';
export * from './explain-filter';
export * from './control-routes';
export * from './control-server';
export * from './event-lines';
export * from './event-stream';
export * from './snapshot-page';
