/**
 * `mlb install` as a user runs it, from the built bundle, into a temporary --root (never this machine's /): the
 * files, their modes and contents, the closing `mlb validate`, the commands left to run, a second run that
 * changes nothing, and refusals that leave the host as it was.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb } from '../cli/run-cli';

const EXAMPLE_CONFIG = join(REPO_ROOT, 'examples/plain-host.yaml');
const KEY = 'c2hhcmVkIGtleSBvZiB0aGUgY2x1c3RlciwgMzIgYnl0ZXM=\n';

let work: string;
let root: string;
let keyFile: string;
let binary: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'mlb-install-'));
  root = join(work, 'root');
  keyFile = join(work, 'gossip.key');
  writeFileSync(keyFile, KEY, { mode: 0o600 });
  // Stands for the one-file dist/mlb (some 100 MB to build): install copies whatever --binary names.
  binary = join(work, 'mlb');
  writeFileSync(binary, '#!/bin/sh\necho "mlb stand-in"\n');
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const at = (path: string): string => join(root, path);
const mode = (path: string): string => (statSync(at(path)).mode & 0o7777).toString(8);
const read = (path: string): string => readFileSync(at(path), 'utf8');

function install(extra: string[] = [], config = EXAMPLE_CONFIG) {
  return runMlb([
    'install',
    '--root',
    root,
    '--yes',
    '--no-start',
    '--node-name',
    'node-b',
    '--gossip-bind',
    '192.168.10.12',
    '--join',
    '192.168.10.11:7946,192.168.10.13:7946',
    '--config',
    config,
    '--binary',
    binary,
    ...extra,
  ]);
}

describe('mlb install --root DIR --yes --no-start', () => {
  it("installs every file of the README's steps with its mode, then validates the installed configuration", () => {
    const run = install(['--gossip-key-from', keyFile]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect([
      mode('usr/local/bin/mlb'),
      mode('etc/mlb/mlb.yaml'),
      mode('etc/mlb/gossip.key'),
      mode('etc/default/mlb'),
      mode('etc/systemd/system/mlb.service'),
    ]).toEqual(['755', '644', '600', '644', '644']);
    expect(read('usr/local/bin/mlb')).toBe(readFileSync(binary, 'utf8'));
    expect(read('etc/mlb/mlb.yaml')).toBe(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    expect(read('etc/mlb/gossip.key')).toBe(KEY);
    expect(read('etc/systemd/system/mlb.service')).toBe(readFileSync(join(REPO_ROOT, 'systemd/mlb.service'), 'utf8'));
    const env = read('etc/default/mlb');
    expect(env).toMatch(/^MLB_NODE_NAME=node-b$/m);
    expect(env).toMatch(/^MLB_GOSSIP_BIND=192\.168\.10\.12:7946$/m);
    expect(env).toMatch(/^MLB_JOIN=192\.168\.10\.11:7946,192\.168\.10\.13:7946$/m);

    expect(run.stdout).toContain(`$ mlb validate --config ${at('etc/mlb/mlb.yaml')} --node-name node-b`);
    expect(run.stdout).toContain(`${at('etc/mlb/mlb.yaml')}: valid (2 pools`);
    expect(run.stdout).toMatch(/demo\/web\s+192\.168\.10\.200\s+lan/);
    // Under --root nothing runs on this machine: the group and the start are left to the user, as commands.
    expect(run.stdout).toContain('groupadd --system mlb');
    expect(run.stdout).toContain('systemctl daemon-reload && systemctl enable --now mlb');
    expect(run.stdout).not.toContain('$ mlb status');
  });

  it('run again with the same inputs, says there is nothing to change and rewrites nothing', () => {
    expect(install(['--gossip-key-from', keyFile]).status).toBe(0);
    const files = ['usr/local/bin/mlb', 'etc/mlb/mlb.yaml', 'etc/mlb/gossip.key', 'etc/default/mlb', 'etc/systemd/system/mlb.service'];
    const before = files.map((f) => statSync(at(f)).mtimeMs);
    const again = install(['--gossip-key-from', keyFile]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('Nothing to change');
    expect(again.stdout).not.toContain('write ');
    expect(files.map((f) => statSync(at(f)).mtimeMs)).toEqual(before);
    expect(again.stdout).toContain(': valid (');
    // With no per-host flags at all, the installed values are the defaults: still nothing to change.
    const bare = runMlb(['install', '--root', root, '--yes', '--no-start', '--binary', binary]);
    expect(bare.status).toBe(0);
    expect(bare.stdout).toContain('Nothing to change');
    expect(files.map((f) => statSync(at(f)).mtimeMs)).toEqual(before);
  });

  it('--first-host makes a key once (0600, 32 random bytes in base64); a second run keeps it', () => {
    expect(install(['--first-host']).status).toBe(0);
    const key = read('etc/mlb/gossip.key');
    expect(key).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(mode('etc/mlb/gossip.key')).toBe('600');
    expect(install(['--first-host']).stdout).toContain('Nothing to change');
    expect(read('etc/mlb/gossip.key')).toBe(key);
  });

  it('refuses a different configuration than the installed one, saying where they differ; --force replaces it', () => {
    expect(install(['--gossip-key-from', keyFile]).status).toBe(0);
    const changed = join(work, 'changed.yaml');
    writeFileSync(changed, readFileSync(EXAMPLE_CONFIG, 'utf8').replace('192.168.10.200-192.168.10.220', '192.168.10.200-192.168.10.230'));
    const refused = install(['--gossip-key-from', keyFile], changed);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('install refused, nothing was changed');
    expect(refused.stderr).toContain(
      `configDiffers: /etc/mlb/mlb.yaml differs from ${changed}: 1 line(s) only in the installed file, 1 only in the new one`,
    );
    expect(read('etc/mlb/mlb.yaml')).toBe(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    const forced = install(['--gossip-key-from', keyFile, '--force'], changed);
    expect(forced.status).toBe(0);
    expect(read('etc/mlb/mlb.yaml')).toBe(readFileSync(changed, 'utf8'));
  });

  it('refuses, writing nothing, on a bad address, a missing key or an invalid configuration, with every reason', () => {
    const invalid = join(work, 'invalid.yaml');
    writeFileSync(
      invalid,
      'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: lan\nspec:\n  addresses:\n    - 192.168.10.300/24\n',
    );
    const run = runMlb([
      'install',
      '--root',
      root,
      '--yes',
      '--no-start',
      '--gossip-bind',
      '192.168.10.300',
      '--config',
      invalid,
      '--binary',
      binary,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('badAddress: --gossip-bind "192.168.10.300"');
    expect(run.stderr).toContain('missingKey: this host has no /etc/mlb/gossip.key');
    expect(run.stderr).toMatch(new RegExp(`invalidConfig: ${invalid} is not valid[^]*${invalid}:7:`));
    expect(readdirSync(work)).not.toContain('root');
  });

  it('stops at a step that fails, naming it (exit 1, no stack trace); run again, it finishes', () => {
    mkdirSync(root);
    writeFileSync(at('etc'), 'a file where a directory must be');
    const failed = install(['--gossip-key-from', keyFile]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^mlb: create \/etc\/mlb\/ \(0755\): ENOTDIR/);
    expect(failed.stderr).not.toContain('internal error');
    rmSync(at('etc'));
    const again = install(['--gossip-key-from', keyFile]);
    expect(again.status).toBe(0);
    expect(read('etc/mlb/gossip.key')).toBe(KEY);
  });

  it('--dry-run prints each step and writes nothing', () => {
    const run = install(['--gossip-key-from', keyFile, '--dry-run']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Would do (--dry-run: nothing is changed):');
    expect(run.stdout).toContain('write /etc/mlb/gossip.key (0600)');
    expect(readdirSync(work)).not.toContain('root');
  });

  it('from dist/mlb.mjs without --binary, refuses and says how to get the one-file mlb', () => {
    const run = runMlb([
      'install',
      '--root',
      root,
      '--yes',
      '--no-start',
      '--gossip-bind',
      '192.168.10.12',
      '--config',
      EXAMPLE_CONFIG,
      '--first-host',
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('noBinary:');
    expect(run.stderr).toContain('npm run dist');
    expect(readdirSync(work)).not.toContain('root');
  });
});
