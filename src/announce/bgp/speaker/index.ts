// src/announce/bgp/speaker: desired routes per peer, the Adj-RIB-Out reconciler and UPDATE packing. Pure.
export * from './speaker-input-error';
export * from './route-intent';
export * from './desired-routes';
export * from './route-attributes';
export * from './update-size';
export * from './update-packing';
export * from './adj-rib-out';
