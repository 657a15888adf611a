/**
 * From `mlb install`'s flags (and, at a terminal, answers) to an InstallRequest: the values that differ per host
 * default to what /etc/default/mlb already says, so re-running `mlb install --yes` keeps a host as it is; the
 * key, the configuration and the binary are read here, the configuration validated as `mlb validate` does.
 */
import { randomBytes } from 'node:crypto';
import { statSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { formatDiagnostic } from '../../model';
import { readConfig } from '../config-input';
import { allocate } from '../offline-cluster';
import { validateFindings } from '../validate-findings';
import { UsageError } from '../exit-codes';
import { runningAsSingleExecutable } from '../../packaging/single-executable';
import { envValue } from './env-file';
import { onlyComments } from './file-difference';
import { fileSha256, underRoot } from './host-facts';
import type { BinarySource, ConfigSource, HostFacts, InstallRequest, KeySource } from './install-plan';
import { INSTALL_PATHS } from './install-paths';
import type { Ask } from './prompt';

/** Random bytes in a generated key: as many as the README's `head -c 32 /dev/urandom | base64` (AES-256's size). */
const GENERATED_KEY_BYTES = 32;

export interface InstallFlags {
  readonly root: string;
  readonly nodeName?: string;
  readonly gossipBind?: string;
  readonly join?: string;
  readonly gossipKeyFrom?: string;
  readonly firstHost: boolean;
  readonly config?: string;
  readonly binary?: string;
  readonly force: boolean;
  readonly start: boolean;
}

/** The key as the Debian package and the README make one: base64 of random bytes, with a newline. */
function generatedKey(): Uint8Array {
  return new TextEncoder().encode(`${randomBytes(GENERATED_KEY_BYTES).toString('base64')}\n`);
}

function readFileFlag(flag: string, path: string): Buffer {
  try {
    if (!statSync(path).isFile()) throw new UsageError(`${flag} ${path} is not a file`);
    return readFileSync(path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${flag} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
}

async function configSource(path: string, nodeName: string): Promise<ConfigSource> {
  const text = readFileFlag('--config', path).toString('utf8');
  const loaded = await readConfig(path);
  const findings = validateFindings(loaded.diagnostics, loaded.snapshot, loaded.snapshot ? allocate(loaded.snapshot) : undefined, nodeName);
  return { from: path, text, errors: findings.errors.map(formatDiagnostic), warnings: findings.warnings.map(formatDiagnostic) };
}

async function binarySource(flags: InstallFlags, onThisHost: boolean): Promise<BinarySource> {
  if (flags.binary !== undefined) {
    readFileFlag('--binary', flags.binary);
    return { kind: 'copy', from: flags.binary, sha256: await fileSha256(flags.binary) };
  }
  if (!runningAsSingleExecutable()) {
    return {
      kind: 'none',
      why:
        'this mlb is dist/mlb.mjs run by node (it needs node_modules and its addons beside it), not one file to copy: ' +
        'run the one-file build instead (npm run dist, then sudo dist/mlb install ...), or name it with --binary PATH',
    };
  }
  if (process.execPath === INSTALL_PATHS.packagedBinary && onThisHost && statSync(INSTALL_PATHS.packagedUnit, { throwIfNoEntry: false })) {
    return { kind: 'packaged' };
  }
  return { kind: 'copy', from: process.execPath, sha256: await fileSha256(process.execPath) };
}

/** A value: the flag, else (at a terminal) the answer, else the suggestion. */
async function value(given: string | undefined, ask: Ask | undefined, question: string, suggested: string): Promise<string> {
  if (given !== undefined) return given.trim();
  return ask ? ask(question, suggested) : suggested;
}

export async function installRequest(
  flags: InstallFlags,
  facts: HostFacts,
  onThisHost: boolean,
  ask: Ask | undefined,
): Promise<InstallRequest> {
  const env = facts.files.get(INSTALL_PATHS.env);
  const envText = env ? new TextDecoder().decode(env.bytes) : '';
  const nodeName = await value(flags.nodeName, ask, "This host's node name", envValue(envText, 'MLB_NODE_NAME') ?? hostname());
  const gossipBind = await value(
    flags.gossipBind,
    ask,
    "This host's gossip address, IP[:PORT]",
    envValue(envText, 'MLB_GOSSIP_BIND') ?? '',
  );
  const join = await value(
    flags.join,
    ask,
    "The other hosts' gossip addresses, IP:PORT,... (empty: none yet)",
    envValue(envText, 'MLB_JOIN') ?? '',
  );

  const hasKey = facts.files.has(INSTALL_PATHS.key);
  let keyFrom = flags.gossipKeyFrom;
  if (keyFrom === undefined && !flags.firstHost && !hasKey && ask) {
    keyFrom = await ask("The cluster's gossip key, copied from a host already installed (empty: this is the first host, make one)", '');
  }
  const key: KeySource = keyFrom
    ? { kind: 'given', from: keyFrom, bytes: new Uint8Array(readFileFlag('--gossip-key-from', keyFrom)) }
    : flags.firstHost || (keyFrom === '' && !hasKey)
      ? { kind: 'generate', bytes: generatedKey() }
      : { kind: 'none' };

  const installedConfig = facts.files.get(INSTALL_PATHS.config);
  const installedHoldsObjects = installedConfig !== undefined && !onlyComments(new TextDecoder().decode(installedConfig.bytes));
  const suggestedConfig = installedHoldsObjects ? underRoot(flags.root, INSTALL_PATHS.config) : '';
  const configPath = await value(flags.config, ask, "The cluster's mlb.yaml (the same file on every host)", suggestedConfig);
  const config = configPath === '' ? undefined : await configSource(configPath, nodeName);

  return {
    nodeName,
    gossipBind,
    join: join
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    key,
    config,
    binary: await binarySource(flags, onThisHost),
    force: flags.force,
    onThisHost,
    start: onThisHost && flags.start,
  };
}
