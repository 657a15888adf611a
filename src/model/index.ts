// src/model: the object types, the Snapshot and label selectors. Pure.
export * from './types';
export * from './snapshot';
export * from './diagnostic';
export * from './diagnostic-report';
export * from './label-selector';
export * from './bgp-local-pref';
export * from './well-known';
export * from './parse';
