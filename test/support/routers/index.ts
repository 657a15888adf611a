/**
 * The router side of mlb's BGP interop tests, in one import: real FRR 8.4, BIRD 2, GoBGP 3 and ExaBGP 4.2 in
 * NetnsLab namespaces, each answering in the shared RouterPath/PeerSession shapes (route-path.ts).
 */
export { missingRouterPackages, routerLabSkipReason, type RouterKind } from './availability';
export { startBird, type BirdBfdSession, type BirdNeighbor, type BirdOptions, type BirdRouter, type BirdSession } from './bird';
export { startExabgp, type ExabgpLog, type ExabgpOptions, type ExabgpReceiver, type ExabgpUpdate } from './exabgp';
export {
  startFrr,
  type FrrBfd,
  type FrrBfdPeer,
  type FrrListenRange,
  type FrrNeighbor,
  type FrrOptions,
  type FrrRouter,
  type FrrSummary,
} from './frr';
export {
  announceArgs,
  startGobgp,
  type Announcement,
  type GobgpNeighbor,
  type GobgpOptions,
  type GobgpRouter,
  type MrtInjection,
} from './gobgp';
export { kernelNextHops } from './kernel-routes';
export {
  ipVersionOfText,
  formatCommunity,
  nextHopsOf,
  type Origin,
  type PeerSession,
  type RouterPath,
} from '../../../src/cli/lab/route-path';
export { RouterError, waitFor, type RouterErrorCode } from '../../../src/cli/lab/router-shell';
