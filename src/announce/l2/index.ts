// src/announce/l2: ARP and NDP for layer 2 mode, pure. Codecs (RFC layouts above each), the responders' decisions
// (frame in, reply or drop reason out), the gratuitous schedule (a reducer with injected time) and the announcer's
// reconciler (desired (IP, interfaces) in, effects out). Sockets, timers and logging live in the daemon.
export * from './drop-reasons';
export * from './mac-address';
export * from './ethernet';
export * from './arp-packet';
export * from './checksum';
export * from './ipv6-icmpv6';
export * from './ndp-options';
export * from './ndp-packet';
export * from './solicited-node';
export * from './l2-interface';
export * from './arp-responder';
export * from './ndp-responder';
export * from './l2-responder';
export * from './gratuitous-schedule';
export * from './l2-announcer-state';
