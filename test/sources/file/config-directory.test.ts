// --config as a directory: its *.yaml and *.yml files, in name order, are one configuration. Each file keeps the
// single-file checks, positions name the file and line an editor opens, and the daemon's source watches the
// directory (a file added, edited or broken is picked up like an edit of the one file).
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextState } from './next-state';
import { FileSource, type FileSourceState, loadConfigFile, workerParser } from '../../../src/sources/file';
import { configFileNames, joinConfigFiles } from '../../../src/sources/file/config-directory';
import { MLB_BUNDLE } from '../../cli/run-cli';

const POOL = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: lan
  namespace: metallb-system
spec:
  addresses:
    - 192.168.10.200-192.168.10.220
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: lan
  namespace: metallb-system
`;

function service(name: string, ip?: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: demo
spec:
  type: LoadBalancer
${ip ? `  loadBalancerIP: ${ip}\n` : ''}  ports:
    - port: 80
`;
}

let dir: string;
const sources: FileSource[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-conf-d-'));
});
afterEach(() => {
  for (const s of sources.splice(0)) s.stop();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  return path;
}

const serviceNames = (state: FileSourceState) => state.snapshot?.services.map((s) => `${s.meta.namespace}/${s.meta.name}`).sort() ?? [];

describe('the files of a configuration directory', () => {
  it("are its *.yaml and *.yml files in name order, without hidden ones (editor locks, a ConfigMap's ..data)", () => {
    expect(configFileNames(['b.yml', 'README', '.#a.yaml', '..data', 'a.yaml', '10-x.yaml', 'c.yaml.bak', 'B.yaml'])).toEqual([
      '10-x.yaml',
      'B.yaml',
      'a.yaml',
      'b.yml',
    ]);
  });

  it('join so that each line of the joined text is known to be a line of one file', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    const joined = joinConfigFiles([
      { file: 'a', bytes: bytes('x: 1\ny: 2\n') },
      { file: 'b', bytes: bytes('') },
      { file: 'c', bytes: bytes('%YAML 1.2\n---\nz: 3\n') },
    ]);
    expect(new TextDecoder().decode(joined.bytes)).toBe('x: 1\ny: 2\n...\n...\n%YAML 1.2\n---\nz: 3\n');
    expect(joined.parts.map(({ file, lineOffset }) => [file, lineOffset])).toEqual([
      ['a', 0],
      ['b', 3],
      ['c', 4],
    ]);
  });
});

describe('loadConfigFile on a directory', () => {
  it('reads the files as one configuration: a service in one file takes an address from a pool in another', async () => {
    write('10-pools.yaml', POOL);
    write('20-web.yml', service('web'));
    write('30-api.yaml', `%YAML 1.2\n---\n${service('api')}`);
    write('notes.txt', 'not: [yaml');
    const result = await loadConfigFile(dir);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.ok && result.snapshot.services.map((s) => s.meta.name).sort()).toEqual(['api', 'web']);
    expect(result.ok && result.snapshot.pools.map((p) => p.meta.name)).toEqual(['lan']);
  });

  it('positions name the file and its own line, not the directory or a line of the joined text', async () => {
    write('10-pools.yaml', POOL.replace('192.168.10.200-', '192.168.10.300-'));
    const services = write('20-services.yaml', `${service('web')}---\n${service('bad', '10.0.0.999')}`);
    const result = await loadConfigFile(dir);
    expect(result.ok).toBe(false);
    const where = result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.position);
    expect(where).toContainEqual({ file: join(dir, '10-pools.yaml'), line: 8, column: 7 });
    // The first service is 9 lines, "---" the 10th; the second's loadBalancerIP value is on line 18, column 19.
    expect(where).toContainEqual({ file: services, line: 18, column: 19 });
  });

  it("keeps each file's own checks: one cut off (no final newline) is refused by its name", async () => {
    write('10-pools.yaml', POOL);
    write('20-web.yaml', service('web').trimEnd());
    const result = await loadConfigFile(dir);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'fileIncomplete', position: { file: join(dir, '20-web.yaml') } });
  });

  it('refuses a file in it that is not a regular file, and says which', async () => {
    write('10-pools.yaml', POOL);
    mkdirSync(join(dir, '20-oops.yaml'));
    const result = await loadConfigFile(dir);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toBe('fileNotRegular');
    expect(result.diagnostics[0]?.message).toContain(join(dir, '20-oops.yaml'));
  });

  it('refuses files together larger than --max-config-bytes, each one being under it', async () => {
    write('10-pools.yaml', POOL);
    write('20-web.yaml', service('web'));
    const result = await loadConfigFile(dir, { maxBytes: POOL.length + 10 });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'fileTooLarge' });
    expect(result.diagnostics[0]?.message).toContain(`the files of ${dir}`);
  });

  it('refuses a directory with no configuration file in it', async () => {
    write('README', 'nothing here\n');
    const result = await loadConfigFile(dir);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.message).toContain('no *.yaml or *.yml file');
  });
});

describe("FileSource on a directory (the daemon's --config)", () => {
  function source(parse = {}): FileSource {
    const s = new FileSource(dir, { debounceMs: 20, pollIntervalMs: 100, settleMs: 10, ...parse });
    sources.push(s);
    return s;
  }

  it('reloads when a file is added, and an invalid edit keeps the last good configuration, positioned in its file', async () => {
    write('10-pools.yaml', POOL);
    write('20-web.yaml', service('web'));
    const s = source();
    expect(serviceNames(await s.start())).toEqual(['demo/web']);

    const added = nextState(s, (st) => serviceNames(st).length === 2);
    write('30-api.yaml', service('api'));
    expect(serviceNames(await added)).toEqual(['demo/api', 'demo/web']);

    const broken = nextState(s, (st) => st.stale);
    write('30-api.yaml', service('api', '10.0.0.999'));
    const stale = await broken;
    expect(serviceNames(stale)).toEqual(['demo/api', 'demo/web']);
    expect(stale.diagnostics.find((d) => d.severity === 'error')?.position?.file).toBe(join(dir, '30-api.yaml'));
  });

  it('notices with fs.watch off too (the stat poll compares every file), and a file removed removes its services', async () => {
    write('10-pools.yaml', POOL);
    write('20-web.yaml', service('web'));
    write('30-api.yaml', service('api'));
    const s = source({ useFsWatch: false });
    expect(serviceNames(await s.start())).toEqual(['demo/api', 'demo/web']);
    const removed = nextState(s, (st) => serviceNames(st).length === 1);
    rmSync(join(dir, '30-api.yaml'));
    expect(serviceNames(await removed)).toEqual(['demo/web']);
  });

  it('follows a Kubernetes ConfigMap volume: files are links through ..data, swapped in one rename', async () => {
    const version = (name: string, files: Record<string, string>) => {
      mkdirSync(join(dir, name));
      for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, name, file), text);
    };
    version('..v1', { 'pools.yaml': POOL, 'services.yaml': service('web') });
    symlinkSync('..v1', join(dir, '..data'));
    symlinkSync('..data/pools.yaml', join(dir, 'pools.yaml'));
    symlinkSync('..data/services.yaml', join(dir, 'services.yaml'));
    const s = source();
    expect(serviceNames(await s.start())).toEqual(['demo/web']);
    const swapped = nextState(s, (st) => serviceNames(st).includes('demo/api'));
    version('..v2', { 'pools.yaml': POOL, 'services.yaml': `${service('web')}---\n${service('api')}` });
    symlinkSync('..v2', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    expect(serviceNames(await swapped)).toEqual(['demo/api', 'demo/web']);
  });

  it("parses on the daemon's worker thread with the same positions", async () => {
    write('10-pools.yaml', POOL);
    write('20-web.yaml', service('web', '10.0.0.999'));
    const s = source({ parse: workerParser({ script: MLB_BUNDLE }) });
    await expect(s.start()).rejects.toMatchObject({
      diagnostics: expect.arrayContaining([
        expect.objectContaining({ position: expect.objectContaining({ file: join(dir, '20-web.yaml'), line: 8 }) }),
      ]),
    });
  });
});
