/**
 * The imperative shell every router harness shares. It lives in src/lab/router-shell.ts, because the lab's FRR
 * router (`mlb lab up --bgp`) runs on it too and src never imports from test/; this file keeps the harness's
 * import path.
 */
export {
  COMMAND_TIMEOUT_MS, POLL_INTERVAL_MS, ROUTER_ERROR_CODES, RouterError, execInNetns, isAlive, killByPidFiles, killPids,
  makeRouterDir, readPid, removeRouterDir, sleep, userIds, waitFor, type NetnsTarget, type RouterErrorCode,
} from '../../../src/lab/router-shell';
