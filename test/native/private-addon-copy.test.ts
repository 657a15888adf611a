/**
 * Loading a native module from memory (the one-file build's embedded addons): the copy is made only in a directory
 * private to this user and leaves nothing behind; a directory anyone else could write to, or that is not this
 * user's, is refused with the reason.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dlopenPrivateCopy, privateDirectoryBases, privateDirectoryProblem } from '../../src/native/private-addon-copy';
import { REPO_ROOT } from '../cli/run-cli';

const UID = 1000;
const dir = { isDirectory: true, isSymbolicLink: false, uid: UID, mode: 0o40700 };

describe('privateDirectoryProblem', () => {
  it('accepts a 0700 directory of this user', () => {
    expect(privateDirectoryProblem(dir, UID)).toBeUndefined();
  });
  it.each([
    [{ ...dir, mode: 0o41777 }, 'its mode 777 lets others in'],
    [{ ...dir, mode: 0o40750 }, 'its mode 750 lets others in'],
    [{ ...dir, uid: 0 }, 'it is owned by uid 0, not 1000'],
    [{ ...dir, isSymbolicLink: true, isDirectory: false }, 'it is a symbolic link'],
    [{ ...dir, isDirectory: false }, 'it is not a directory'],
  ])('refuses %o: %s', (facts, why) => {
    expect(privateDirectoryProblem(facts, UID)).toBe(why);
  });
});

describe('privateDirectoryBases', () => {
  it('tries the runtime directory before the temporary one, and skips an unset one', () => {
    expect(privateDirectoryBases({ XDG_RUNTIME_DIR: '/run/user/1000' })[0]).toBe('/run/user/1000');
    expect(privateDirectoryBases({})).toEqual([tmpdir()]);
  });
});

describe('dlopenPrivateCopy', () => {
  const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
  let temp: string | undefined;
  /** A fresh temporary directory as the only place the copy may go. */
  function privateTemp(): string {
    temp = mkdtempSync(join(tmpdir(), 'mlb-private-copy-'));
    process.env.TMPDIR = temp;
    delete process.env.XDG_RUNTIME_DIR;
    return temp;
  }
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('loads an addon from its bytes and leaves the temporary directory as it was', () => {
    const temp = privateTemp();
    const bytes = new Uint8Array(readFileSync(join(REPO_ROOT, 'build/Release/mlb_udp_ttl.node')));
    const addon = dlopenPrivateCopy<{ UdpTtlSocket: unknown }>('mlb_udp_ttl.node', bytes);
    expect(typeof addon.UdpTtlSocket).toBe('function');
    expect(readdirSync(temp)).toEqual([]);
  });

  it('gives each of two addons loaded one after the other its own exports', () => {
    privateTemp();
    const read = (file: string) => new Uint8Array(readFileSync(join(REPO_ROOT, 'build/Release', file)));
    const first = dlopenPrivateCopy<Record<string, unknown>>('mlb_udp_ttl.node', read('mlb_udp_ttl.node'));
    const second = dlopenPrivateCopy<Record<string, unknown>>('mlb_native.node', read('mlb_native.node'));
    expect(Object.keys(first)).toContain('UdpTtlSocket');
    expect(Object.keys(second)).toContain('PacketSocket');
    expect(Object.keys(second)).not.toContain('UdpTtlSocket');
  });

  it('says why when the bytes are not a shared object, and still leaves nothing behind', () => {
    const temp = privateTemp();
    expect(() => dlopenPrivateCopy('broken.node', new TextEncoder().encode('not an ELF file'))).toThrow(
      /no private place to load broken\.node from .*(invalid ELF header|too short)/,
    );
    expect(readdirSync(temp)).toEqual([]);
  });
});
