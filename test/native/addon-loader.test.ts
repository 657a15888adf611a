// addon-loader.ts: where a native module is looked for, what a missing or broken one reports, and that a result is
// kept (one dlopen per file for the life of the process). The real modules are covered by packet-socket.test.ts and
// the BFD tests; these use file names no build produces.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addonCandidates, loadAddon } from '../../src/native/addon-loader';

const dir = mkdtempSync(join(tmpdir(), 'mlb-addon-loader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadAddon', () => {
  it('looks at the override first, then beside the module and in build/Release', () => {
    const env = 'MLB_TEST_LOADER_ORDER';
    process.env[env] = '/nowhere/custom.node';
    try {
      const looked = addonCandidates('mlb_test_order.node', env);
      expect(looked[0]).toBe('/nowhere/custom.node');
      expect(looked.slice(1).every((p) => p.endsWith('mlb_test_order.node'))).toBe(true);
      expect(looked.some((p) => p.includes(join('build', 'Release')))).toBe(true);
    } finally {
      delete process.env[env];
    }
    expect(addonCandidates('mlb_test_order.node', env)[0]).not.toBe('/nowhere/custom.node');
  });

  it('reports a missing module with its hint and where it looked, and never throws', () => {
    const loaded = loadAddon({ fileName: 'mlb_test_missing.node', overrideEnv: 'MLB_TEST_LOADER_MISSING', missingHint: '(build it)' });
    expect(loaded.addon).toBeUndefined();
    expect(loaded.status).toMatchObject({ loaded: false, why: 'no mlb_test_missing.node found (build it)' });
    expect(loaded.status.loaded ? [] : loaded.status.looked).toHaveLength(3);
  });

  it('reports a file that is not a module as not loading, and keeps that answer', () => {
    const path = join(dir, 'mlb_test_broken.node');
    writeFileSync(path, 'not a shared object');
    const env = 'MLB_TEST_LOADER_BROKEN';
    process.env[env] = path;
    try {
      const spec = { fileName: 'mlb_test_broken.node', overrideEnv: env };
      const first = loadAddon(spec);
      expect(first.status.loaded).toBe(false);
      expect(first.status.loaded ? '' : first.status.why).toContain(`${path} did not load`);
      rmSync(path);
      expect(loadAddon(spec)).toBe(first);
    } finally {
      delete process.env[env];
    }
  });
});
