/**
 * What `mlb install` does on one host, decided from what the user gave and what the host already has: the
 * README's hand install ("Installing on two or three plain hosts") as a list of steps, each with why. Pure and
 * synchronous: reading the host (host-facts.ts) and doing the steps (apply-plan.ts) are the shell's.
 *
 * Nothing that differs is replaced without --force: a gossip key or a configuration already on the host may be
 * the cluster's, and replacing it would split this host from the others. Everything already right is listed as
 * unchanged, so a second run says there is nothing to do.
 */
import { formatHostPort, parseHostPort, type HostPort } from '../../gossip/transport/address';
import { keyringFromSecret } from '../../daemon/gossip-key';
import { withHostSettings } from './env-file';
import { differenceSummary, onlyComments } from './file-difference';
import type { InstallProblem } from './install-error';
import { INSTALL_PATHS, MLB_GROUP, MODES, UNIT_NAME } from './install-paths';

/** Kubernetes' rule for a Node's name (an RFC 1123 subdomain): the file's v1 Nodes are matched by it. */
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** RFC 1123's longest DNS name, Kubernetes' limit for a Node's name. */
const MAX_NODE_NAME_CHARS = 253;

export type KeySource =
  /** A copy of the cluster's key (--gossip-key-from), read by the shell. */
  | { readonly kind: 'given'; readonly from: string; readonly bytes: Uint8Array }
  /** --first-host: fresh random bytes, used only when the host has no key yet. */
  | { readonly kind: 'generate'; readonly bytes: Uint8Array }
  /** Neither: the host's existing key, if any. */
  | { readonly kind: 'none' };

export interface ConfigSource {
  readonly from: string;
  readonly text: string;
  /** `mlb validate`'s errors and warnings for it, as printed lines (the shell runs the parser). */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

export type BinarySource =
  | { readonly kind: 'copy'; readonly from: string; readonly sha256: string }
  /** The Debian package's /usr/bin/mlb is running: the package owns the binary and the unit. */
  | { readonly kind: 'packaged' }
  /** No one-file mlb to copy: why, and what to do instead. */
  | { readonly kind: 'none'; readonly why: string };

export interface InstallRequest {
  readonly nodeName: string;
  /** --gossip-bind as typed: IP or IP:PORT. */
  readonly gossipBind: string;
  readonly join: readonly string[];
  readonly key: KeySource;
  readonly config: ConfigSource | undefined;
  readonly binary: BinarySource;
  readonly force: boolean;
  /** Installing onto this host's own / (no --root): groupadd and systemctl run, addresses are checked. */
  readonly onThisHost: boolean;
  /** Start (or restart) the daemon at the end: on this host and without --no-start. */
  readonly start: boolean;
}

export interface ExistingFile {
  readonly bytes: Uint8Array;
  readonly mode: number;
}

export interface HostFacts {
  /** The files already at INSTALL_PATHS.config, key, env and unit (absent ones are not in the map). */
  readonly files: ReadonlyMap<string, ExistingFile>;
  /** The installed binary's SHA-256 and mode, when there is one. */
  readonly binary: { readonly sha256: string; readonly mode: number } | undefined;
  readonly dirs: ReadonlySet<string>;
  /** Whether group mlb exists; undefined when that cannot be known (--root: another host's /etc/group). */
  readonly groupExists: boolean | undefined;
  /** The host's interface addresses (canonical text), when the address is to be checked against them. */
  readonly addresses: readonly string[] | undefined;
  readonly unit: { readonly enabled: boolean; readonly active: boolean } | undefined;
  /** examples/mlb.env and systemd/mlb.service as this build carries them (embedded-files.ts). */
  readonly envExample: string;
  readonly unitText: string;
}

export type InstallStep =
  | { readonly kind: 'mkdir'; readonly path: string; readonly mode: number; readonly why: string }
  | { readonly kind: 'writeFile'; readonly path: string; readonly mode: number; readonly content: Uint8Array; readonly why: string }
  | { readonly kind: 'chmod'; readonly path: string; readonly mode: number; readonly why: string }
  | { readonly kind: 'copyBinary'; readonly from: string; readonly path: string; readonly mode: number; readonly why: string }
  | { readonly kind: 'group'; readonly name: string; readonly why: string }
  | { readonly kind: 'systemctl'; readonly args: readonly string[]; readonly why: string };

export interface InstallPlan {
  /** Why nothing may be done; when any, the steps are not to be applied. */
  readonly problems: readonly InstallProblem[];
  readonly warnings: readonly string[];
  readonly steps: readonly InstallStep[];
  /** What is already as it should be. */
  readonly unchanged: readonly { readonly path: string; readonly why: string }[];
  /** Commands the user runs (under --root, or with --no-start), with why. */
  readonly deferred: readonly { readonly command: string; readonly why: string }[];
  /** The daemon runs at the end (so `mlb status` has something to show). */
  readonly started: boolean;
  /** The node name and gossip address as installed (for mlb validate --node-name, and the summary). */
  readonly nodeName: string;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const decode = (b: Uint8Array): string => new TextDecoder().decode(b);
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const modeText = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/** Checks the per-host inputs; returns the parsed addresses and the problems. */
function checkAddresses(request: InstallRequest, facts: HostFacts, problems: InstallProblem[], warnings: string[]) {
  let bind: HostPort | undefined;
  if (request.gossipBind === '') {
    problems.push({
      code: 'missingAddress',
      message: "give this host's gossip address: --gossip-bind IP[:PORT] (its address on the network the hosts share)",
    });
  } else {
    try {
      bind = parseHostPort(request.gossipBind);
    } catch (error) {
      problems.push({ code: 'badAddress', message: `--gossip-bind ${(error as Error).message}` });
    }
  }
  if (bind && /^(0\.0\.0\.0|::)$/.test(bind.host)) {
    problems.push({
      code: 'badAddress',
      message: `--gossip-bind ${request.gossipBind} listens everywhere: give the one address the other hosts reach this host at`,
    });
    bind = undefined;
  }
  if (bind && facts.addresses && !facts.addresses.includes(bind.host)) {
    const message = `--gossip-bind ${bind.host} is on no interface of this host (it has ${facts.addresses.join(', ') || 'none'})`;
    if (request.onThisHost) problems.push({ code: 'addressNotOnHost', message: `${message}: the daemon could not bind it` });
    else warnings.push(`${message}; fine if the files are for another host (--root)`);
  }
  const join: HostPort[] = [];
  for (const peer of request.join) {
    try {
      join.push(parseHostPort(peer));
    } catch (error) {
      problems.push({ code: 'badAddress', message: `--join ${(error as Error).message}` });
    }
  }
  if (bind && join.some((p) => p.host === bind!.host && p.port === bind!.port)) {
    warnings.push(`--join lists this host's own address ${formatHostPort(bind)}: it is left out`);
  }
  return { bind, join: join.filter((p) => !(bind && p.host === bind.host && p.port === bind.port)) };
}

function checkNodeName(name: string, problems: InstallProblem[]): void {
  if (name.length > MAX_NODE_NAME_CHARS || !NODE_NAME.test(name)) {
    problems.push({
      code: 'badNodeName',
      message: `--node-name "${name}" is not a node name: lowercase letters, digits, '-' and '.', as Kubernetes names Nodes (the file's v1 Nodes are matched by it)`,
    });
  }
}

function usableKey(secret: Uint8Array): boolean {
  try {
    keyringFromSecret(INSTALL_PATHS.key, secret);
    return true;
  } catch {
    return false;
  }
}

/** A file the plan wants at `path`: write it, fix its mode, leave it, or refuse to replace it. */
function placeFile(
  path: string,
  wanted: Uint8Array,
  mode: number,
  why: string,
  facts: HostFacts,
  out: Outcome,
  replaceable: (existing: ExistingFile) => boolean = () => true,
): boolean {
  const existing = facts.files.get(path);
  if (existing && sameBytes(existing.bytes, wanted)) {
    if ((existing.mode & 0o7777) === mode) out.unchanged.push({ path, why });
    else out.steps.push({ kind: 'chmod', path, mode, why: `${why} (was mode ${modeText(existing.mode)})` });
    return true;
  }
  if (existing && !replaceable(existing)) return false;
  out.steps.push({ kind: 'writeFile', path, mode, content: wanted, why });
  return true;
}

interface Outcome {
  steps: InstallStep[];
  unchanged: { path: string; why: string }[];
}

function planKey(request: InstallRequest, facts: HostFacts, out: Outcome, problems: InstallProblem[]): boolean {
  const existing = facts.files.get(INSTALL_PATHS.key);
  const why = "the cluster's gossip key (the same on every host), readable by root alone";
  const key = request.key;
  if (key.kind === 'none' || (key.kind === 'generate' && existing)) {
    if (!existing) {
      problems.push({
        code: 'missingKey',
        message: `this host has no ${INSTALL_PATHS.key}: copy the cluster's key from a host already installed (--gossip-key-from FILE), or make one on the first host (--first-host)`,
      });
      return false;
    }
    // A key the daemon would refuse at start is no key: say so now rather than after systemctl start.
    try {
      keyringFromSecret(INSTALL_PATHS.key, existing.bytes);
    } catch (error) {
      problems.push({
        code: 'badKey',
        message: `${(error as Error).message.replace('--gossip-key-file ', '')}; install the cluster's key with --gossip-key-from FILE`,
      });
      return false;
    }
    return placeFile(INSTALL_PATHS.key, existing.bytes, MODES.key, why, facts, out);
  }
  const label = key.kind === 'given' ? `--gossip-key-from ${key.from}` : 'the generated key';
  try {
    keyringFromSecret(label, key.bytes);
  } catch (error) {
    problems.push({ code: 'badKey', message: (error as Error).message.replace('--gossip-key-file ', '') });
    return false;
  }
  // An unusable installed key holds nothing worth keeping: it is replaced without --force.
  const placed = placeFile(
    INSTALL_PATHS.key,
    key.bytes,
    MODES.key,
    why,
    facts,
    out,
    (installed) => request.force || !usableKey(installed.bytes),
  );
  if (!placed) {
    problems.push({
      code: 'keyDiffers',
      message:
        `${INSTALL_PATHS.key} already holds a different key: this host would no longer talk to the hosts that use it. ` +
        "If the new key is the cluster's (a Debian package install made its own), run again with --force",
    });
  }
  return placed;
}

function planConfig(request: InstallRequest, facts: HostFacts, out: Outcome, problems: InstallProblem[], warnings: string[]): void {
  const config = request.config;
  if (!config) {
    problems.push({
      code: 'missingConfig',
      message: `give the cluster's configuration: --config FILE (the same mlb.yaml on every host; it is copied to ${INSTALL_PATHS.config})`,
    });
    return;
  }
  if (config.errors.length > 0) {
    problems.push({
      code: 'invalidConfig',
      message: `${config.from} is not valid (mlb validate ${config.from}):\n${config.errors.join('\n')}`,
    });
    return;
  }
  warnings.push(...config.warnings);
  const placed = placeFile(
    INSTALL_PATHS.config,
    text(config.text),
    MODES.publicFile,
    "the cluster's configuration (the same file on every host)",
    facts,
    out,
    (existing) => request.force || onlyComments(decode(existing.bytes)),
  );
  if (!placed) {
    const installed = decode(facts.files.get(INSTALL_PATHS.config)!.bytes);
    problems.push({
      code: 'configDiffers',
      message:
        `${INSTALL_PATHS.config} differs from ${config.from}: ${differenceSummary(installed, config.text)}. ` +
        'Every host must run the same file: if the new one is meant to replace it everywhere, run again with --force',
    });
  }
}

function planDirs(steps: InstallStep[], facts: HostFacts, paths: readonly string[]): InstallStep[] {
  const dirs = [...new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/'))))].filter((d) => d !== '' && !facts.dirs.has(d));
  return [...dirs.map((path): InstallStep => ({ kind: 'mkdir', path, mode: MODES.dir, why: 'holds what follows' })), ...steps];
}

/** Whether the daemon must be (re)started for what changed: mlb.yaml alone is reloaded by the running daemon. */
function needsRestart(steps: readonly InstallStep[]): boolean {
  return steps.some((s) => 'path' in s && s.path !== INSTALL_PATHS.config);
}

function planService(request: InstallRequest, facts: HostFacts, steps: InstallStep[], unitChanged: boolean) {
  const deferred: { command: string; why: string }[] = [];
  const service: InstallStep[] = [];
  const unit = facts.unit;
  if (!request.start) {
    const where = request.onThisHost ? '--no-start' : 'files under --root, for another host';
    if (!(unit?.enabled && unit.active)) {
      deferred.push({
        command: `systemctl daemon-reload && systemctl enable --now ${UNIT_NAME}`,
        why: `start mlb now and at every boot (not done: ${where})`,
      });
    } else if (needsRestart(steps)) {
      deferred.push({
        command: `systemctl daemon-reload && systemctl restart ${UNIT_NAME}`,
        why: `the running daemon reads the new files at start (not done: ${where})`,
      });
    }
    return { service, deferred, started: false };
  }
  if (unitChanged) service.push({ kind: 'systemctl', args: ['daemon-reload'], why: 'systemd reads the new unit' });
  if (!unit?.enabled || !unit.active) {
    service.push({ kind: 'systemctl', args: ['enable', '--now', UNIT_NAME], why: 'start mlb now and at every boot' });
  } else if (needsRestart(steps)) {
    service.push({
      kind: 'systemctl',
      args: ['restart', UNIT_NAME],
      why: 'the running daemon reads the binary, key and /etc/default/mlb at start (it hands its IPs over first)',
    });
  }
  return { service, deferred, started: true };
}

export function planInstall(request: InstallRequest, facts: HostFacts): InstallPlan {
  const problems: InstallProblem[] = [];
  const warnings: string[] = [];
  const out: Outcome = { steps: [], unchanged: [] };
  checkNodeName(request.nodeName, problems);
  const { bind, join } = checkAddresses(request, facts, problems, warnings);
  if (bind && join.length === 0) warnings.push('no --join: this host waits for the others to join it (fine for the first host)');

  if (request.binary.kind === 'none') problems.push({ code: 'noBinary', message: request.binary.why });
  if (request.binary.kind === 'copy') {
    if (request.binary.from === INSTALL_PATHS.binary && request.onThisHost) {
      out.unchanged.push({ path: INSTALL_PATHS.binary, why: 'mlb itself (the one running)' });
    } else if (facts.binary?.sha256 === request.binary.sha256 && (facts.binary.mode & 0o7777) === MODES.binary) {
      out.unchanged.push({ path: INSTALL_PATHS.binary, why: 'mlb itself, the same build' });
    } else {
      out.steps.push({
        kind: 'copyBinary',
        from: request.binary.from,
        path: INSTALL_PATHS.binary,
        mode: MODES.binary,
        why: 'mlb itself (the unit runs it)',
      });
    }
  }
  planConfig(request, facts, out, problems, warnings);
  planKey(request, facts, out, problems);
  if (bind) {
    const existingEnv = facts.files.get(INSTALL_PATHS.env);
    const envText = withHostSettings(existingEnv ? decode(existingEnv.bytes) : facts.envExample, {
      MLB_NODE_NAME: request.nodeName,
      MLB_GOSSIP_BIND: formatHostPort(bind),
      MLB_JOIN: join.map(formatHostPort).join(','),
    });
    placeFile(
      INSTALL_PATHS.env,
      text(envText),
      MODES.publicFile,
      "this host's name and addresses (the unit's EnvironmentFile)",
      facts,
      out,
    );
  }
  const before = out.steps.length;
  if (request.binary.kind !== 'packaged') {
    placeFile(
      INSTALL_PATHS.unit,
      text(facts.unitText),
      MODES.publicFile,
      `the systemd unit (runs ${INSTALL_PATHS.binary} daemon with the files above)`,
      facts,
      out,
    );
  }
  const unitChanged = out.steps.length > before;

  const steps = planDirs(
    out.steps,
    facts,
    out.steps.flatMap((s) => ('path' in s && s.kind !== 'chmod' ? [s.path] : [])),
  );
  const deferredGroup: { command: string; why: string }[] = [];
  const groupWhy =
    "the control socket's group: its members run mlb status and mlb drain without root; the daemon refuses to start without it";
  if (facts.groupExists === false && request.onThisHost) steps.push({ kind: 'group', name: MLB_GROUP, why: groupWhy });
  else if (facts.groupExists !== true)
    deferredGroup.push({ command: `groupadd --system ${MLB_GROUP}`, why: `${groupWhy} (not done: --root)` });
  else out.unchanged.push({ path: `group ${MLB_GROUP}`, why: groupWhy });

  const { service, deferred, started } = planService(request, facts, steps, unitChanged);
  const ok = problems.length === 0;
  return {
    problems,
    warnings,
    steps: ok ? [...steps, ...service] : [],
    unchanged: out.unchanged,
    deferred: ok ? [...deferredGroup, ...deferred] : [],
    started: ok && started,
    nodeName: request.nodeName,
  };
}
