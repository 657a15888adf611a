/**
 * `mlb daemon` (the built bundle, parsing on its worker thread) against configuration files that must not take a
 * service down: an emptied file and a FIFO are refused with a reason while the last good configuration runs, a
 * large file is parsed without its peer ever declaring it dead (the fast gossip profile notices a stall of about a
 * second), and a SIGTERM still ends the daemon. On loopback with --no-announce, as test/daemon/daemon.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-daemon-config-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A parse of this much text stalled the event loop for seconds when it ran on it. */
const LARGE_FILE_BYTES = 24 * 1024 * 1024;
const PARSE_WAIT_MS = 120_000;

async function daemon(name: string, config: string, extra: string[] = []): Promise<RunningDaemon> {
  const d = startDaemon([
    '--config',
    config,
    '--node-name',
    name,
    '--gossip-bind',
    `127.0.0.1:${await freeLoopbackPort()}`,
    '--state-dir',
    join(dir, name),
    '--control-socket',
    join(dir, `${name}.sock`),
    '--no-announce',
    ...extra,
  ]);
  running.push(d);
  return d;
}

const event =
  (name: string, fields: Record<string, unknown> = {}) =>
  (l: Record<string, unknown>) =>
    l.event === name && Object.entries(fields).every(([k, v]) => l[k] === v);
const reloaded = (l: Record<string, unknown>) => l.event === 'configLoaded' && l.msg === 'configuration reloaded';

/** Replaces the file atomically, as the refusal messages ask. */
function replace(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

describe('mlb daemon and its configuration file', () => {
  it(
    'refuses an emptied file and a FIFO with reasons, parses a large file without a peer suspecting it, and stops on SIGTERM',
    async () => {
      const example = readFileSync('examples/plain-host.yaml', 'utf8');
      const config = join(dir, 'mlb.yaml');
      copyFileSync('examples/plain-host.yaml', config);
      const a = await daemon('node-a', config, ['--max-config-bytes', String(2 * LARGE_FILE_BYTES)]);
      await a.waitFor(event('gossipStarted'));
      const b = await daemon('node-b', 'examples/plain-host.yaml', ['--join', String(a.lines.find(event('gossipStarted'))?.bind)]);
      await a.waitFor(event('memberJoined', { member: 'node-b' }));

      writeFileSync(config, ''); // `: > mlb.yaml`
      const emptied = await a.waitFor(event('configStale'));
      expect(JSON.stringify(emptied.errors)).toContain(`${config} holds no objects`);

      rmSync(config);
      expect(spawnSync('mkfifo', [config]).status).toBe(0);
      const fifo = await a.waitFor((l) => event('configStale')(l) && JSON.stringify(l.errors).includes('FIFO'));
      expect(JSON.stringify(fifo.errors)).toContain(`${config} is a FIFO (named pipe), not a regular file`);

      rmSync(config);
      const line = `# ${'padding '.repeat(12)}\n`;
      replace(config, example + line.repeat(Math.ceil(LARGE_FILE_BYTES / line.length)));
      await a.waitFor(reloaded, PARSE_WAIT_MS);
      expect(b.lines.some(event('memberFailed', { member: 'node-a' }))).toBe(false);
      expect(a.lines.some(event('memberFailed'))).toBe(false);

      a.child.kill('SIGTERM');
      expect(await a.exited()).toBe(0);
      await b.waitFor(event('memberLeft', { member: 'node-a' }));
    },
    4 * PARSE_WAIT_MS,
  );
});
