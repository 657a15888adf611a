/**
 * Flap damping as a user meets it, with the real `mlb daemon` on loopback (--no-announce): starts refused for a
 * configuration typo (as systemd's Restart=on-failure retries them) and a clean stop leave the fixed daemon
 * without a warm-up; a kill -9 of a running daemon warms the next start up, and its log line says what was counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMlb } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from './run-daemon';

const dir = mkdtempSync(join(tmpdir(), 'mlb-damping-'));
const running: RunningDaemon[] = [];
afterAll(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * An address of this file's own on loopback (all of 127/8 is local on Linux), so the gossip port can be
 * memberlist's default without meeting another test's daemon.
 */
const NET = `127.215.${process.pid % 250}`;
let nextHost = 1;
const args = (stateDir: string, config = 'examples/plain-host.yaml'): string[] => [
  '--config',
  config,
  '--node-name',
  'node-a',
  '--gossip-bind',
  `${NET}.${nextHost++}:7946`,
  '--state-dir',
  stateDir,
  '--control-socket',
  join(stateDir, 'mlb.sock'),
  '--no-announce',
];

function daemon(stateDir: string): RunningDaemon {
  const d = startDaemon(args(stateDir));
  running.push(d);
  return d;
}

const event = (name: string) => (l: Record<string, unknown>) => l.event === name;
const decision = (d: RunningDaemon) => d.waitFor((l) => l.event === 'warmUpStarted' || l.event === 'warmUpSkipped');

// Concurrent: each case has its own state directory and ports, and most of the time is process start-up.
describe.concurrent('mlb daemon: flap damping', () => {
  it('a clean stop and starts refused for a typo (systemd retrying): the fixed start does not warm up', async () => {
    const stateDir = join(dir, 'typo');
    const first = daemon(stateDir);
    // A SIGTERM any time after start-up began: the daemon finishes starting, then stops cleanly.
    await first.waitFor(event('controlListening'));
    first.child.kill('SIGTERM');
    expect(await first.exited()).toBe(0);
    // Two, not systemd's usual handful: each costs a process start; warm-up.test.ts has four.
    for (let i = 0; i < 2; i++) {
      const refused = runMlb(['daemon', ...args(stateDir, 'test/fixtures/invalid/reversed-range.yaml')]);
      expect(refused.status).toBe(1);
      expect(refused.stdout).not.toContain('"runRecorded"');
    }
    const fixed = daemon(stateDir);
    const line = await decision(fixed);
    expect(line).toMatchObject({ event: 'warmUpSkipped', reason: 'noRecentUncleanEnd', uncleanEnds: 0, lastStop: 'clean' });
    expect(line.msg).toMatch(
      /^no unclean end of a running daemon in the last 1 h \(the last run, running since .*, stopped cleanly \d+ s ago; clean stops and starts that never got running are not counted\): no warm-up$/,
    );
  });

  it('a kill -9 of a running daemon: the next start warms up and says it counted one unclean end', async () => {
    const stateDir = join(dir, 'crash');
    const first = daemon(stateDir);
    await first.waitFor(event('runRecorded'));
    first.child.kill('SIGKILL');
    await first.exited();
    const next = daemon(stateDir);
    const line = await decision(next);
    expect(line).toMatchObject({
      event: 'warmUpStarted',
      reason: 'recentUncleanEnds',
      uncleanEnds: 1,
      lastStop: 'unclean',
      durationMs: 30_000,
    });
    expect(line.msg).toMatch(
      /^1 unclean end of a running daemon in the last 1 h \(the last run, running since .*, has no clean stop on record: it crashed or was killed; .*\): warming up for 30 s$/,
    );
  });
});
