/**
 * A refused edit is reported errors first, everywhere an operator looks: the daemon's configStale log line keeps
 * errors and warnings in separate arrays, `mlb status --once` lists the error before any warning, and the view's
 * two-line banner shows the error and counts the warnings. The edit below has two warnings above its one error
 * (line 23), as a real stale file had: sorted by line alone, the warnings filled the banner and the error was cut.
 * On loopback with --no-announce, as test/daemon/daemon.test.ts.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headerModel } from '../../src/cli/tui/status-rows';
import type { ControlSnapshot } from '../../src/daemon/control';
import { runMlb } from '../cli/run-cli';
import { startDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-stale-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two warnings (a pool nobody advertises at 5:9, an advertisement naming a missing pool at 17:7), then an error at 23:7. */
const STALE_EDIT = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  namespace: metallb-system
  name: spare
spec:
  addresses:
    - 192.168.10.240/29
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: lan
  namespace: metallb-system
spec:
  ipAddressPools:
    - lan-typo
---
apiVersion: v1
metadata:
  name: extra
  namespace: demo
kind: Servce
spec:
  type: LoadBalancer
`;

describe('a stale configuration, errors first', () => {
  it('logs errors and warnings apart, and status shows the error before (and never hidden by) the warnings', async () => {
    const config = join(dir, 'mlb.yaml');
    copyFileSync('examples/plain-host.yaml', config);
    const socket = join(dir, 'mlb.sock');
    const d = startDaemon([
      '--config',
      config,
      '--node-name',
      'node-a',
      '--gossip-bind',
      `127.0.0.1:${await freeLoopbackPort()}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      socket,
      '--no-announce',
    ]);
    try {
      await d.waitFor((l) => l.event === 'gossipStarted');
      writeFileSync(`${config}.tmp`, STALE_EDIT);
      renameSync(`${config}.tmp`, config);
      const line = await d.waitFor((l) => l.event === 'configStale');
      expect(line.errors).toEqual([`${config}:23:7: error: unknown kind "Servce" (did you mean "Service"?)`]);
      expect(line.warnings).toEqual([
        expect.stringMatching(/^\S+:5:9: warning: pool "spare" is not covered/),
        expect.stringMatching(/^\S+:17:7: warning: L2Advertisement "lan" names pool "lan-typo", which does not exist/),
      ]);

      const once = runMlb(['status', '--socket', socket, '--once']);
      expect(once.status).toBe(0);
      const listed = once.stdout.split('\n').filter((l) => /^\s+- \S+:\d+:\d+: (error|warning):/.test(l));
      expect(listed.map((l) => l.match(/: (error|warning):/)?.[1])).toEqual(['error', 'warning', 'warning']);
      expect(listed[0]).toContain('23:7: error: unknown kind');

      const json = runMlb(['status', '--socket', socket, '--json']);
      const banner = headerModel(JSON.parse(json.stdout) as ControlSnapshot).configErrors;
      expect(banner).toEqual([
        `${config}:23:7: error: unknown kind "Servce" (did you mean "Service"?)`,
        'and 2 warnings (mlb status --once lists them)',
      ]);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited();
    }
  }, 60_000);
});
