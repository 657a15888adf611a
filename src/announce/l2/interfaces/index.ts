// src/announce/l2/interfaces: which interfaces answer for a VIP (pure selection with a reason per interface) and
// the netlink adapter that keeps the link table current.
export * from './interface-selection';
export * from './interface-chooser';
export * from './netlink-links';
export type { AddressChange } from './link-table';
