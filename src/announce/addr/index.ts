// src/announce/addr: binding VIPs to the mlb0 dummy interface on plain hosts. Pure: vip-plan,
// arp-sysctl-plan. Not pure: VipBinder over vip-link (rtnetlink) and arp-sysctls (/proc).
export * from './vip-plan';
export * from './arp-sysctl-plan';
export * from './vip-bind-error';
export { VipBinder, type VipBinderOptions, type VipReconcileResult, type PrepareInterfacesResult } from './vip-binder';
export { VIP_LINK_KINDS, type VipLinkKind } from './vip-link';
export { PROC_IPV4_CONF } from './arp-sysctls';
