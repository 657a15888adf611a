/**
 * `mlb daemon --config DIR` (the built bundle, parsing on its worker thread): the directory's *.yaml and *.yml
 * files are one configuration, a file added to it is a reload, and a broken file makes the configuration stale with
 * the error positioned in that file while the last good one runs. On loopback with --no-announce.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-daemon-conf-d-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const event = (name: string) => (l: Record<string, unknown>) => l.event === name;

function replace(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

describe('mlb daemon --config DIR', () => {
  it('runs the files of a directory as one configuration and reloads when one is added or broken', async () => {
    const documents = readFileSync('examples/plain-host.yaml', 'utf8').split(/^---\n/m);
    const services = documents.filter((d) => /^kind: Service$/m.test(d));
    const rest = documents.filter((d) => !services.includes(d));
    const conf = join(dir, 'conf.d');
    mkdirSync(conf);
    writeFileSync(join(conf, '10-cluster.yaml'), rest.join('---\n'));
    writeFileSync(join(conf, '20-first.yaml'), services[0] as string);

    const a = startDaemon([
      '--config',
      conf,
      '--node-name',
      'node-a',
      '--gossip-bind',
      `127.0.0.1:${await freeLoopbackPort()}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      join(dir, 'a.sock'),
      '--no-announce',
    ]);
    running.push(a);
    const loaded = await a.waitFor(event('configLoaded'));
    expect(loaded).toMatchObject({ file: conf, services: 1 });

    replace(join(conf, '30-more.yml'), services.slice(1).join('---\n'));
    const reloaded = await a.waitFor((l) => l.event === 'configLoaded' && l.msg === 'configuration reloaded');
    expect(reloaded.services).toBe(services.length);

    replace(join(conf, '30-more.yml'), 'apiVersion: v1\nkind: Servic\n');
    const stale = await a.waitFor(event('configStale'));
    expect(stale.errors).toEqual([`${join(conf, '30-more.yml')}:2:7: error: unknown kind "Servic" (did you mean "Service"?)`]);
  });
});
