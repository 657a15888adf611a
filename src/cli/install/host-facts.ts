/**
 * Reads what a host already has for `mlb install` (the imperative shell of install-plan.ts): the files at the
 * install paths under --root, the binary's digest, group mlb, the interface addresses and the unit's state.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { formatIP, parseIP } from '../../ip';
import { envExampleText, systemdUnitText } from './embedded-files';
import type { ExistingFile, HostFacts } from './install-plan';
import { INSTALL_PATHS, MLB_GROUP, UNIT_NAME } from './install-paths';

/** A path on the target host, under --root. */
export function underRoot(root: string, path: string): string {
  return root === '/' ? path : join(root, path);
}

function readExisting(path: string): ExistingFile | undefined {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return undefined;
    return { bytes: new Uint8Array(readFileSync(path)), mode: stat.mode };
  } catch {
    return undefined;
  }
}

/** SHA-256 of a file, streamed: the one-file mlb is some 100 MB. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every address on this host's interfaces, canonical (as parseHostPort gives --gossip-bind). */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((a) => parseIP(a.address.split('%')[0] ?? ''))
    .flatMap((ip) => (ip ? [formatIP(ip)] : []));
}

function groupExists(root: string, onThisHost: boolean): boolean | undefined {
  if (onThisHost) return spawnSync('getent', ['group', MLB_GROUP]).status === 0;
  const groupFile = underRoot(root, '/etc/group');
  if (!existsSync(groupFile)) return undefined;
  return readFileSync(groupFile, 'utf8')
    .split('\n')
    .some((line) => line.startsWith(`${MLB_GROUP}:`));
}

function unitState(): HostFacts['unit'] {
  const ask = (verb: string) => spawnSync('systemctl', [verb, '--quiet', UNIT_NAME]).status === 0;
  return { enabled: ask('is-enabled'), active: ask('is-active') };
}

export async function readHostFacts(root: string, onThisHost: boolean): Promise<HostFacts> {
  const files = new Map<string, ExistingFile>();
  for (const path of [INSTALL_PATHS.config, INSTALL_PATHS.key, INSTALL_PATHS.env, INSTALL_PATHS.unit]) {
    const existing = readExisting(underRoot(root, path));
    if (existing) files.set(path, existing);
  }
  const dirs = new Set<string>();
  for (const dir of [INSTALL_PATHS.configDir, '/etc/default', '/usr/local/bin', '/etc/systemd/system']) {
    if (existsSync(underRoot(root, dir))) dirs.add(dir);
  }
  const binaryPath = underRoot(root, INSTALL_PATHS.binary);
  const binary = existsSync(binaryPath) ? { sha256: await fileSha256(binaryPath), mode: statSync(binaryPath).mode } : undefined;
  return {
    files,
    binary,
    dirs,
    groupExists: groupExists(root, onThisHost),
    addresses: interfaceAddresses(),
    unit: onThisHost ? unitState() : undefined,
    envExample: envExampleText(),
    unitText: systemdUnitText(),
  };
}
