/**
 * The frr.conf of a lab router configured as MetalLB tutorials configure theirs (passive peer group, RFC 8212
 * policies, /32-only prefix list, bfd profiles). It lives in src/lab/frr-config.ts, because `mlb lab up --bgp`
 * renders the same router and src never imports from test/; this file keeps the harness's import path.
 */
export {
  PEER_GROUP, PREFIX_LIST_V4, PREFIX_LIST_V6, ROUTE_MAP_IN_V4, ROUTE_MAP_IN_V6, ROUTE_MAP_OUT, renderFrrConfig,
  renderFrrDaemonConfigs, type FrrBfd, type FrrDaemon, type FrrListenRange, type FrrNeighbor, type FrrOptions,
} from '../../../src/lab/frr-config';
