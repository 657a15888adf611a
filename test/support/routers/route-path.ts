/**
 * The shapes every router harness answers in (a path to a prefix, a BGP session). They live in
 * src/lab/route-path.ts, because the lab's FRR router answers in them too and src never imports from test/; this
 * file keeps the harness's import path.
 */
export {
  ipVersionOfText, formatCommunity, nextHopsOf, type Origin, type PeerSession, type RouterPath,
} from '../../../src/lab/route-path';
