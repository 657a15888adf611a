/**
 * --gossip-key-file: MetalLB's secretkey turned into the key, a file other users can read warned about, and a
 * secret too short to be a key refused.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GossipKeyError, keyFileModeWarning, keyringFromSecret, loadGossipKeyring, MIN_SECRET_BYTES } from '../../src/daemon/gossip-key';
import { metallbKeyFromSecret } from '../../src/gossip/codec';

const dir = mkdtempSync(join(tmpdir(), 'mlb-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (s: string) => new TextEncoder().encode(s);
/** What MetalLB's helm chart and docs produce: 16 random bytes in unpadded base64, 22 characters. */
const METALLB_SECRET = 'q83vEjRWeJq8ESIzRFVmdw';

describe('keyFileModeWarning', () => {
  it('warns when group or others can read the file, naming it and the fix', () => {
    for (const mode of [0o100644, 0o100640, 0o100604, 0o100444]) {
      const warning = keyFileModeWarning('/etc/mlb/gossip.key', mode);
      expect(warning?.event).toBe('gossipKeyFileReadable');
      expect(warning?.message).toContain('/etc/mlb/gossip.key');
      expect(warning?.message).toContain('chmod 600 /etc/mlb/gossip.key');
      expect(warning?.message).toContain(`mode ${(mode & 0o777).toString(8).padStart(4, '0')}`);
    }
  });

  it('is silent for a file only its owner can read', () => {
    expect(keyFileModeWarning('/k', 0o100600)).toBeUndefined();
    expect(keyFileModeWarning('/k', 0o100400)).toBeUndefined();
    // Write or execute for others is odd but does not reveal the key.
    expect(keyFileModeWarning('/k', 0o100622)).toBeUndefined();
  });
});

describe('keyringFromSecret', () => {
  it("derives MetalLB's key from its secretkey", () => {
    const ring = keyringFromSecret('/k', bytes(METALLB_SECRET));
    expect(ring.primary).toEqual(metallbKeyFromSecret(bytes(METALLB_SECRET)));
    expect(ring.primary).toHaveLength(32);
  });

  it(`refuses a secret shorter than memberlist's smallest key (${MIN_SECRET_BYTES} bytes), and an empty one`, () => {
    expect(MIN_SECRET_BYTES).toBe(16);
    const short = (() => {
      try {
        keyringFromSecret('/etc/mlb/gossip.key', bytes('hunter2\n'));
      } catch (e) {
        return e;
      }
    })();
    expect(short).toBeInstanceOf(GossipKeyError);
    expect((short as GossipKeyError).code).toBe('gossipKeyTooShort');
    expect((short as GossipKeyError).message).toMatch(
      /^--gossip-key-file \/etc\/mlb\/gossip\.key holds 8 bytes, too few for a key: memberlist's smallest key is 16 bytes/,
    );
    expect(() => keyringFromSecret('/k', new Uint8Array(0))).toThrow(/is empty/);
    expect(() => keyringFromSecret('/k', new Uint8Array(MIN_SECRET_BYTES))).not.toThrow();
  });
});

describe('loadGossipKeyring', () => {
  it('reads the file and warns when it is readable by others', async () => {
    const path = join(dir, 'open.key');
    writeFileSync(path, METALLB_SECRET);
    chmodSync(path, 0o644);
    const loaded = await loadGossipKeyring(path);
    expect(loaded.keyring.primary).toEqual(metallbKeyFromSecret(bytes(METALLB_SECRET)));
    expect(loaded.warnings.map((w) => w.message)).toEqual([
      `--gossip-key-file ${path} is readable by other users (mode 0644): whoever reads it can join the cluster; run chmod 600 ${path}`,
    ]);
    chmodSync(path, 0o600);
    expect((await loadGossipKeyring(path)).warnings).toEqual([]);
  });

  it('names the path of a directory, a missing file and a short secret', async () => {
    await expect(loadGossipKeyring(dir)).rejects.toThrow(`cannot read --gossip-key-file ${dir}: it is a directory, not a file (EISDIR)`);
    await expect(loadGossipKeyring(join(dir, 'none'))).rejects.toThrow(`cannot read --gossip-key-file ${join(dir, 'none')}: ENOENT`);
    const path = join(dir, 'short.key');
    writeFileSync(path, 'abc', { mode: 0o600 });
    await expect(loadGossipKeyring(path)).rejects.toMatchObject({ code: 'gossipKeyTooShort' });
  });
});
