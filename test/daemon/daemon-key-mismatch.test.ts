/**
 * Two `mlb daemon`s on loopback with different gossip keys: the joiner used to log only "stream closed without a
 * reply" and the node it dialled nothing. Both now warn, naming the other's address and the key to fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-key-mismatch-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function daemon(name: string, port: number, key: string, extra: string[] = []): RunningDaemon {
  const d = startDaemon([
    '--config',
    'examples/plain-host.yaml',
    '--node-name',
    name,
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--state-dir',
    join(dir, name),
    '--control-socket',
    join(dir, `${name}.sock`),
    '--no-announce',
    '--gossip-key-file',
    key,
    ...extra,
  ]);
  running.push(d);
  return d;
}

const keyMismatch = (l: Record<string, unknown>) => l.event === 'gossip' && l.reason === 'keyMismatch';

describe("mlb daemon with another node's gossip key", () => {
  it('both sides name the peer and say the keys must match', async () => {
    const keyA = join(dir, 'key-a');
    const keyC = join(dir, 'key-c');
    writeFileSync(keyA, 'c2VjcmV0c2VjcmV0c2VjcmV0\n', { mode: 0o600 });
    writeFileSync(keyC, 'b3RoZXJvdGhlcm90aGVyb3Ro\n', { mode: 0o600 });
    const pa = await freeLoopbackPort();
    const a = daemon('node-a', pa, keyA);
    await a.waitFor((l) => l.event === 'gossipStarted');
    const c = daemon('node-c', await freeLoopbackPort(), keyC, ['--join', `127.0.0.1:${pa}`]);
    const cSays = await c.waitFor(keyMismatch);
    expect(cSays.level).toBe('warn');
    expect(cSays.peer).toBe(`127.0.0.1:${pa}`);
    expect(cSays.msg).toContain(
      `127.0.0.1:${pa} sent gossip that this node's key cannot decrypt: the gossip key must be the same on every node`,
    );
    const aSays = await a.waitFor(keyMismatch);
    expect(aSays.level).toBe('warn');
    expect(String(aSays.peer)).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(aSays.msg).toMatch(/^127\.0\.0\.1:\d+ sent gossip that this node's key cannot decrypt: .*memberlist secretkey/);
    expect(a.lines.some((l) => l.event === 'memberJoined' && l.member === 'node-c')).toBe(false);
    // Files only their owner can read: no warning about them.
    expect(a.lines.some((l) => l.event === 'gossipKeyFileReadable')).toBe(false);
  });

  it('warns at start when the key file is readable by others, and refuses a key too short to be one', async () => {
    const open = join(dir, 'open-key');
    writeFileSync(open, 'c2VjcmV0c2VjcmV0c2VjcmV0\n', { mode: 0o644 });
    const a = daemon('node-open', await freeLoopbackPort(), open);
    const warning = await a.waitFor((l) => l.event === 'gossipKeyFileReadable');
    expect(warning.level).toBe('warn');
    expect(warning.msg).toBe(
      `--gossip-key-file ${open} is readable by other users (mode 0644): whoever reads it can join the cluster; run chmod 600 ${open}`,
    );
    const short = join(dir, 'short-key');
    writeFileSync(short, 'secret\n', { mode: 0o600 });
    const s = daemon('node-short', await freeLoopbackPort(), short);
    expect(await s.exited()).toBe(1);
    expect(s.stderr.join('')).toContain(
      `--gossip-key-file ${short} holds 7 bytes, too few for a key: memberlist's smallest key is 16 bytes`,
    );
  });
});
