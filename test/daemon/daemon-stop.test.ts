/**
 * A clean stop, as an operator reads its log: `systemctl stop` (SIGTERM) of the last node withdraws each service
 * once, logs nothing at error level and exits 0; with VIP binding on (in a network namespace of the test's own),
 * the VIP is unbound once and nothing tries to bind on the closed binder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canUseNetns, NetnsLab } from '../support/netns-lab';
import { API_IP, API_SERVICE, API_SERVICE_YAML, LAB_POOL_YAML } from '../e2e/daemon-lab';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-stop-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Line = Record<string, unknown>;
const event = (name: string) => (l: Line) => l.event === name;
/** pino's levels at or above error, as the daemon writes them (logger.ts: the level as a word). */
const ERROR_LEVELS = new Set(['error', 'fatal']);

/** What the operator would be alarmed by, and what each service's withdrawals were, in one view. */
function stopReport(lines: readonly Line[]) {
  const firstWithdrawal = lines.findIndex(event('serviceWithdrawn'));
  return {
    errors: lines.filter((l) => ERROR_LEVELS.has(String(l.level))).map((l) => `${String(l.event)}: ${String(l.msg)}`),
    withdrawals: lines
      .filter(event('serviceWithdrawn'))
      .map((l) => `${String(l.service)} ${String(l.reason)}`)
      .sort(),
    announcedAgain:
      firstWithdrawal < 0
        ? []
        : lines
            .slice(firstWithdrawal)
            .filter(event('serviceAnnounced'))
            .map((l) => String(l.service)),
  };
}

describe('a clean stop of the last node', () => {
  it('withdraws each service once, with no error, and exits 0 (loopback, announcing off)', async () => {
    const port = await freeLoopbackPort();
    const daemon = startDaemon([
      // examples/plain-host.yaml: a lone node holds demo/api-v6, demo/dns-tcp and demo/dns-udp (demo/web's health
      // check has no server here, so nobody holds it).
      '--config',
      'examples/plain-host.yaml',
      '--node-name',
      'node-a',
      '--gossip-bind',
      `127.0.0.1:${port}`,
      '--state-dir',
      join(dir, 'loopback'),
      '--control-socket',
      join(dir, 'loopback.sock'),
      '--no-announce',
    ]);
    running.push(daemon);
    await daemon.waitFor((l) => l.event === 'serviceAnnounced' && l.service === 'demo/dns-udp');
    await daemon.waitFor((l) => l.event === 'serviceAnnounced' && l.service === 'demo/api-v6');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited()).toBe(0);
    expect(stopReport(daemon.lines)).toEqual({
      errors: [],
      withdrawals: ['demo/api-v6 shuttingDown', 'demo/dns-tcp shuttingDown', 'demo/dns-udp shuttingDown'],
      announcedAgain: [],
    });
  });

  const netns = canUseNetns();
  it.skipIf(!netns.ok)(
    `unbinds its VIP once and binds nothing on the closed binder${netns.ok ? '' : ` (skipped: ${netns.why})`}`,
    async () => {
      const lab = new NetnsLab();
      try {
        const host = lab.addHost('node-a');
        const config = join(dir, 'lab.yaml');
        writeFileSync(config, `${LAB_POOL_YAML}---\n${API_SERVICE_YAML}`);
        const daemon = startDaemon(
          [
            '--config',
            config,
            '--node-name',
            'node-a',
            '--gossip-bind',
            `${host.ipv4}:7946`,
            '--state-dir',
            join(dir, 'netns'),
            '--control-socket',
            join(dir, 'netns.sock'),
          ],
          host.netns,
        );
        running.push(daemon);
        await daemon.waitFor((l) => l.event === 'vipBound' && l.ip === API_IP);
        daemon.child.kill('SIGTERM');
        expect(await daemon.exited()).toBe(0);
        expect(stopReport(daemon.lines)).toEqual({ errors: [], withdrawals: [`${API_SERVICE} shuttingDown`], announcedAgain: [] });
        expect(daemon.lines.filter((l) => l.event === 'vipUnbound').map((l) => l.ip)).toEqual([API_IP]);
        expect(lab.execIn(host, 'ip', ['-o', 'addr', 'show', 'dev', 'mlb0'])).not.toContain(API_IP);
      } finally {
        lab.destroy();
      }
    },
  );
});
