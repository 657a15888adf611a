/**
 * The `netlink` package, required on first use so that importing a caller never fails where it is missing.
 * Under node (source, dist/mlb.mjs) it comes from node_modules with the native binding it finds itself. The
 * one-file build (scripts/build-sea.mjs) replaces this file with a require of the bundled package, whose binding
 * is then the executable's embedded copy (netlink-embedded-binding.ts).
 */
import { createRequire } from 'node:module';
import type * as Netlink from 'netlink';

export type NetlinkModule = typeof Netlink;

export function requireNetlink(): NetlinkModule {
  return createRequire(import.meta.url)('netlink') as NetlinkModule;
}
