/**
 * Pure readers of FRR 8.4's JSON answers. They live in src/lab/frr-json.ts, because `mlb lab demo --bgp` reads
 * the same answers and src never imports from test/; this file keeps the harness's import path.
 */
export {
  parseFrrBfdPeers, parseFrrRoutes, parseFrrSummary, parseZebraBgpCounts, parseZebraNextHops, type FrrBfdPeer, type FrrSummary,
} from '../../../src/lab/frr-json';
