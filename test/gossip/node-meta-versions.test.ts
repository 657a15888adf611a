/**
 * Node meta across releases: the version fields are appended where the previous release's decoder stops reading,
 * so old and new nodes read each other's meta during a rolling upgrade. The previous release's decoder is its own
 * source, taken from git at PREVIOUS_RELEASE_COMMIT (skipped, saying so, in a clone without that commit).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeNodeMeta, encodeNodeMeta, META_MAX_RELEASE_BYTES, type NodeMeta } from '../../src/gossip/node-meta';
import { REPO_ROOT } from '../cli/run-cli';
import { PREVIOUS_RELEASE_COMMIT } from '../support/previous-release';

const base: NodeMeta = {
  labels: { 'topology.kubernetes.io/zone': 'rack-1' },
  conditions: [{ type: 'Ready', status: 'True' }],
  draining: false,
  warmingUp: true,
};
const current: NodeMeta = { ...base, macs: ['02:13:00:00:00:01'], recordsVersion: 1, release: '0.1.0+57be7a2' };

/** The previous release's node-meta.ts, its imports pointed at this checkout (both files are unchanged since). */
function previousDecoder(): { source?: string; why?: string } {
  try {
    const text = execFileSync('git', ['show', `${PREVIOUS_RELEASE_COMMIT}:src/gossip/node-meta.ts`], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return {
      source: text
        .replace("'../errors/coded-error'", JSON.stringify(resolve(REPO_ROOT, 'src/errors/coded-error.ts')))
        .replace("'./messages'", JSON.stringify(resolve(REPO_ROOT, 'src/gossip/messages.ts'))),
    };
  } catch {
    return { why: `commit ${PREVIOUS_RELEASE_COMMIT} is not in this clone (shallow?)` };
  }
}

describe('node meta versions', () => {
  it('round-trips the records version and release, with or without MACs', () => {
    expect(decodeNodeMeta(encodeNodeMeta(current))).toEqual(current);
    const noMacs = { ...base, recordsVersion: 1, release: '0.2.0' };
    expect(decodeNodeMeta(encodeNodeMeta(noMacs))).toEqual({ ...noMacs, macs: [] });
  });

  it('reads meta from a release before the version fields as mlb meta without a version', () => {
    const old = { ...base, macs: ['02:13:00:00:00:02'] };
    const decoded = decodeNodeMeta(encodeNodeMeta(old));
    expect(decoded).toEqual(old);
    expect(decoded?.recordsVersion).toBeUndefined();
  });

  it('ignores fields a newer release appends after the release text', () => {
    const bytes = encodeNodeMeta(current);
    expect(decodeNodeMeta(Uint8Array.from([...bytes, 7, 1, 2, 3]))).toEqual(current);
    expect(decodeNodeMeta(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
  });

  it('cuts a long release text instead of refusing the meta', () => {
    const long = 'é'.repeat(100);
    const release = decodeNodeMeta(encodeNodeMeta({ ...current, release: long }))?.release ?? '';
    expect(Buffer.byteLength(release)).toBeLessThanOrEqual(META_MAX_RELEASE_BYTES);
    expect(long.startsWith(release) && release.length > 0).toBe(true);
  });

  const previous = previousDecoder();
  const dir = mkdtempSync(join(tmpdir(), 'mlb-old-meta-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(!previous.source)(
    `the previous release decodes this release's meta, flags and labels intact${previous.why ? ` (skipped: ${previous.why})` : ''}`,
    async () => {
      const file = join(dir, 'node-meta-previous.ts');
      writeFileSync(file, previous.source!);
      const old = (await import(file)) as {
        decodeNodeMeta: (b: Uint8Array) => NodeMeta | undefined;
        encodeNodeMeta: (m: NodeMeta) => Uint8Array;
      };
      // Read by the previous release: the same mlb member, so both releases elect from the same facts.
      expect(old.decodeNodeMeta(encodeNodeMeta(current))).toEqual({ ...base, macs: current.macs });
      expect(old.decodeNodeMeta(encodeNodeMeta({ ...base, recordsVersion: 1, release: 'x' }))).toEqual({ ...base, macs: [] });
      // And the other way: what the previous release sends, this one reads.
      expect(decodeNodeMeta(old.encodeNodeMeta({ ...base, macs: ['02:13:00:00:00:03'] }))).toEqual({
        ...base,
        macs: ['02:13:00:00:00:03'],
      });
    },
  );
});
