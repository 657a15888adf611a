// src/ip: addresses, networks and ranges, with Go-compatible canonical text. Pure.
export * from './ip-address';
export * from './parse-ip';
export * from './format-ip';
export * from './cidr';
export * from './ip-range';
export * from './address-set';
