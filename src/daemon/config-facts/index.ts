// src/daemon/config-facts: what each node's configuration file defines, gossiped so one node's file that lacks
// a service can neither darken nor move that service's IP. Everything here is pure except config-tracker.ts.
export * from './config-digest';
export * from './config-facts-codec';
export * from './config-agreement';
export * from './service-retention';
export * from './config-tracker';
