/**
 * `mlb install`'s plan, decided from the inputs and what the host already has, before anything is written: the
 * README's install steps for a first host and a joining one, refusals that name what to change (a bad address,
 * no key, a key or configuration that differs from the installed one), and nothing to do on a second run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envExampleText, systemdUnitText } from '../../src/cli/install/embedded-files';
import { envValue, withHostSettings } from '../../src/cli/install/env-file';
import {
  planInstall,
  type ExistingFile,
  type HostFacts,
  type InstallPlan,
  type InstallRequest,
  type InstallStep,
} from '../../src/cli/install/install-plan';
import { INSTALL_PATHS } from '../../src/cli/install/install-paths';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const EXAMPLE_CONFIG = readFileSync(new URL('../../examples/plain-host.yaml', import.meta.url), 'utf8');
const CLUSTER_KEY = bytes('c2hhcmVkIGtleSBvZiB0aGUgY2x1c3RlciwgMzIgYnl0ZXM=\n');
const OTHER_KEY = bytes('YW5vdGhlciBrZXksIG1hZGUgYnkgdGhlIHBhY2thZ2UgISE=\n');

function facts(overrides: Partial<HostFacts> = {}): HostFacts {
  return {
    files: new Map(),
    binary: undefined,
    dirs: new Set(),
    groupExists: false,
    addresses: ['127.0.0.1', '192.168.10.11', '192.168.10.12'],
    unit: { enabled: false, active: false },
    envExample: envExampleText(),
    unitText: systemdUnitText(),
    ...overrides,
  };
}

function request(overrides: Partial<InstallRequest> = {}): InstallRequest {
  return {
    nodeName: 'node-a',
    gossipBind: '192.168.10.11',
    join: ['192.168.10.12:7946', '192.168.10.13:7946'],
    key: { kind: 'generate', bytes: CLUSTER_KEY },
    config: { from: 'mlb.yaml', text: EXAMPLE_CONFIG, errors: [], warnings: [] },
    binary: { kind: 'copy', from: '/home/me/dist/mlb', sha256: 'aa'.repeat(32) },
    force: false,
    onThisHost: true,
    start: true,
    ...overrides,
  };
}

const stepAt = (plan: InstallPlan, path: string): InstallStep | undefined => plan.steps.find((s) => 'path' in s && s.path === path);
function written(plan: InstallPlan, path: string): { content: string; mode: number } {
  const step = stepAt(plan, path);
  if (step?.kind !== 'writeFile') throw new Error(`${path} is not written: ${JSON.stringify(step)}`);
  return { content: text(step.content), mode: step.mode };
}
const codes = (plan: InstallPlan): string[] => plan.problems.map((p) => p.code);

/** The host as it is after the plan's steps: what a second run finds. */
function afterApplying(plan: InstallPlan, before: HostFacts, sha256: string): HostFacts {
  const files = new Map<string, ExistingFile>(before.files);
  let { binary, groupExists, unit } = before;
  const dirs = new Set(before.dirs);
  for (const step of plan.steps) {
    if (step.kind === 'writeFile') files.set(step.path, { bytes: step.content, mode: 0o100000 | step.mode });
    if (step.kind === 'chmod') files.set(step.path, { ...files.get(step.path)!, mode: 0o100000 | step.mode });
    if (step.kind === 'copyBinary') binary = { sha256, mode: 0o100000 | step.mode };
    if (step.kind === 'mkdir') dirs.add(step.path);
    if (step.kind === 'group') groupExists = true;
    if (step.kind === 'systemctl' && step.args[0] === 'enable') unit = { enabled: true, active: true };
  }
  return { ...before, files, binary, dirs, groupExists, unit };
}

describe('the first host', () => {
  const plan = planInstall(request(), facts());

  it('installs the binary, the configuration, a new key (0600), its settings and the unit, then starts it', () => {
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map((s) => s.kind)).toEqual([
      'mkdir',
      'mkdir',
      'mkdir',
      'mkdir',
      'copyBinary',
      'writeFile',
      'writeFile',
      'writeFile',
      'writeFile',
      'group',
      'systemctl',
      'systemctl',
    ]);
    expect(stepAt(plan, INSTALL_PATHS.binary)).toMatchObject({ kind: 'copyBinary', from: '/home/me/dist/mlb', mode: 0o755 });
    expect(written(plan, INSTALL_PATHS.config)).toEqual({ content: EXAMPLE_CONFIG, mode: 0o644 });
    expect(written(plan, INSTALL_PATHS.key)).toEqual({ content: text(CLUSTER_KEY), mode: 0o600 });
    expect(written(plan, INSTALL_PATHS.unit)).toEqual({ content: systemdUnitText(), mode: 0o644 });
    expect(plan.steps.filter((s) => s.kind === 'systemctl').map((s) => s.kind === 'systemctl' && s.args.join(' '))).toEqual([
      'daemon-reload',
      'enable --now mlb',
    ]);
    expect(plan.started).toBe(true);
  });

  it("writes this host's name and addresses into /etc/default/mlb, in examples/mlb.env's form", () => {
    const env = written(plan, INSTALL_PATHS.env).content;
    expect(envValue(env, 'MLB_NODE_NAME')).toBe('node-a');
    expect(envValue(env, 'MLB_GOSSIP_BIND')).toBe('192.168.10.11:7946');
    expect(envValue(env, 'MLB_JOIN')).toBe('192.168.10.12:7946,192.168.10.13:7946');
    expect(env).toContain('#MLB_GOSSIP_PROFILE=lan');
    expect(env.split('\n')[0]).toMatch(/^# \/etc\/default\/mlb on node-a:/);
  });

  it('needs no --join, and says the host waits for the others', () => {
    const alone = planInstall(request({ join: [] }), facts());
    expect(alone.problems).toEqual([]);
    expect(envValue(written(alone, INSTALL_PATHS.env).content, 'MLB_JOIN')).toBeUndefined();
    expect(alone.warnings.join('\n')).toContain('no --join');
  });
});

describe('a joining host', () => {
  it('installs the copied key as it is and its own name and address', () => {
    const plan = planInstall(
      request({
        nodeName: 'node-b',
        gossipBind: '192.168.10.12:7946',
        join: ['192.168.10.11:7946'],
        key: { kind: 'given', from: 'gossip.key', bytes: CLUSTER_KEY },
      }),
      facts(),
    );
    expect(plan.problems).toEqual([]);
    expect(written(plan, INSTALL_PATHS.key)).toEqual({ content: text(CLUSTER_KEY), mode: 0o600 });
    const env = written(plan, INSTALL_PATHS.env).content;
    expect([envValue(env, 'MLB_NODE_NAME'), envValue(env, 'MLB_GOSSIP_BIND'), envValue(env, 'MLB_JOIN')]).toEqual([
      'node-b',
      '192.168.10.12:7946',
      '192.168.10.11:7946',
    ]);
  });

  it('keeps the key it already has when asked to make one (a second --first-host run)', () => {
    const existing = new Map([[INSTALL_PATHS.key, { bytes: CLUSTER_KEY, mode: 0o100600 }]]);
    const plan = planInstall(request({ key: { kind: 'generate', bytes: OTHER_KEY } }), facts({ files: existing }));
    expect(stepAt(plan, INSTALL_PATHS.key)).toBeUndefined();
    expect(plan.unchanged.map((u) => u.path)).toContain(INSTALL_PATHS.key);
  });
});

describe('refusals: nothing is done, every reason is given', () => {
  it.each([
    ['192.168.10.300', 'badAddress'],
    ['192.168.10.11:99999', 'badAddress'],
    ['0.0.0.0:7946', 'badAddress'],
    ['eth0', 'badAddress'],
    ['', 'missingAddress'],
    ['192.168.99.1', 'addressNotOnHost'],
  ])('--gossip-bind %j: %s', (gossipBind, code) => {
    const plan = planInstall(request({ gossipBind }), facts());
    expect(codes(plan)).toEqual([code]);
    expect(plan.steps).toEqual([]);
    expect(plan.deferred).toEqual([]);
  });

  it('an address on no interface is only a warning under --root (the files may be for another host)', () => {
    const plan = planInstall(
      request({ gossipBind: '192.168.99.1', onThisHost: false, start: false }),
      facts({ groupExists: undefined, unit: undefined }),
    );
    expect(plan.problems).toEqual([]);
    expect(plan.warnings.join('\n')).toContain('192.168.99.1 is on no interface');
    expect(plan.steps.some((s) => s.kind === 'group' || s.kind === 'systemctl')).toBe(false);
    expect(plan.deferred.map((d) => d.command)).toEqual(['groupadd --system mlb', 'systemctl daemon-reload && systemctl enable --now mlb']);
  });

  it('a bad --join address and a bad node name, together', () => {
    const plan = planInstall(request({ nodeName: 'Node_A', join: ['192.168.10.12:7946', 'node-c'] }), facts());
    expect(codes(plan)).toEqual(['badNodeName', 'badAddress']);
    expect(plan.problems[1]!.message).toContain('--join "node-c"');
  });

  it("no key given and none on the host: says how to get the cluster's", () => {
    const plan = planInstall(request({ key: { kind: 'none' } }), facts());
    expect(codes(plan)).toEqual(['missingKey']);
    expect(plan.problems[0]!.message).toContain('--gossip-key-from FILE');
    expect(plan.problems[0]!.message).toContain('--first-host');
  });

  it("a key shorter than memberlist's smallest", () => {
    const plan = planInstall(request({ key: { kind: 'given', from: 'k', bytes: bytes('short\n') } }), facts());
    expect(codes(plan)).toEqual(['badKey']);
    expect(plan.problems[0]!.message).toContain('6 bytes, too few');
  });

  it('an installed key the daemon would refuse (too short) is a problem, not kept', () => {
    const existing = new Map([[INSTALL_PATHS.key, { bytes: bytes('short\n'), mode: 0o100600 }]]);
    const plan = planInstall(request({ key: { kind: 'none' } }), facts({ files: existing }));
    expect(codes(plan)).toEqual(['badKey']);
    expect(plan.problems[0]!.message).toContain('--gossip-key-from FILE');
    const replaced = planInstall(request({ key: { kind: 'given', from: 'gossip.key', bytes: CLUSTER_KEY } }), facts({ files: existing }));
    expect(written(replaced, INSTALL_PATHS.key).content).toBe(text(CLUSTER_KEY));
  });

  it('a different key on the host is kept unless --force', () => {
    const existing = new Map([[INSTALL_PATHS.key, { bytes: OTHER_KEY, mode: 0o100600 }]]);
    const given = { kind: 'given', from: 'gossip.key', bytes: CLUSTER_KEY } as const;
    expect(codes(planInstall(request({ key: given }), facts({ files: existing })))).toEqual(['keyDiffers']);
    expect(written(planInstall(request({ key: given, force: true }), facts({ files: existing })), INSTALL_PATHS.key).content).toBe(
      text(CLUSTER_KEY),
    );
  });

  it('a different configuration on the host is refused with a summary of the difference, replaced with --force', () => {
    const installed = EXAMPLE_CONFIG.replace('192.168.10.200-192.168.10.220', '192.168.10.100-192.168.10.120');
    const existing = new Map([[INSTALL_PATHS.config, { bytes: bytes(installed), mode: 0o100644 }]]);
    const plan = planInstall(request(), facts({ files: existing }));
    expect(codes(plan)).toEqual(['configDiffers']);
    const line = EXAMPLE_CONFIG.split('\n').findIndex((l) => l.includes('192.168.10.200-192.168.10.220')) + 1;
    expect(plan.problems[0]!.message).toContain(
      `1 line(s) only in the installed file, 1 only in the new one; first difference at line ${line}`,
    );
    expect(plan.problems[0]!.message).toContain('192.168.10.100-192.168.10.120');
    expect(plan.steps).toEqual([]);
    expect(written(planInstall(request({ force: true }), facts({ files: existing })), INSTALL_PATHS.config).content).toBe(EXAMPLE_CONFIG);
  });

  it("the Debian package's commented-out mlb.yaml is replaced without --force: it holds nothing", () => {
    const placeholder = `# everything commented out\n${EXAMPLE_CONFIG.split('\n')
      .map((l) => `# ${l}`)
      .join('\n')}\n`;
    const plan = planInstall(request(), facts({ files: new Map([[INSTALL_PATHS.config, { bytes: bytes(placeholder), mode: 0o100644 }]]) }));
    expect(plan.problems).toEqual([]);
    expect(written(plan, INSTALL_PATHS.config).content).toBe(EXAMPLE_CONFIG);
  });

  it("an invalid configuration, with validate's lines; no configuration at all", () => {
    const invalid = planInstall(
      request({ config: { from: 'bad.yaml', text: 'x', errors: ['bad.yaml:3:5: error: no pools'], warnings: [] } }),
      facts(),
    );
    expect(codes(invalid)).toEqual(['invalidConfig']);
    expect(invalid.problems[0]!.message).toContain('bad.yaml:3:5: error: no pools');
    expect(codes(planInstall(request({ config: undefined }), facts()))).toEqual(['missingConfig']);
  });

  it('no one-file mlb to install', () => {
    const plan = planInstall(request({ binary: { kind: 'none', why: 'run dist/mlb' } }), facts());
    expect(plan.problems).toEqual([{ code: 'noBinary', message: 'run dist/mlb' }]);
  });
});

describe('a second run', () => {
  it('finds nothing to change and starts nothing again', () => {
    const first = planInstall(request(), facts());
    const again = planInstall(request(), afterApplying(first, facts(), 'aa'.repeat(32)));
    expect(again.problems).toEqual([]);
    expect(again.steps).toEqual([]);
    expect(again.unchanged.map((u) => u.path)).toEqual([
      INSTALL_PATHS.binary,
      INSTALL_PATHS.config,
      INSTALL_PATHS.key,
      INSTALL_PATHS.env,
      INSTALL_PATHS.unit,
      'group mlb',
    ]);
  });

  it('with only a new mlb.yaml (--force) does not restart the running daemon: it reloads the file itself', () => {
    const first = planInstall(request(), facts());
    const installed = afterApplying(first, facts(), 'aa'.repeat(32));
    const newConfig = { from: 'new.yaml', text: `${EXAMPLE_CONFIG}# one more line\n`, errors: [], warnings: [] };
    const plan = planInstall(request({ config: newConfig, force: true }), installed);
    expect(plan.steps.map((s) => s.kind)).toEqual(['writeFile']);
  });

  it("with a new address restarts the running daemon, keeping the host's own lines in /etc/default/mlb", () => {
    const first = planInstall(request(), facts());
    const installed = afterApplying(first, facts(), 'aa'.repeat(32));
    const env = text(installed.files.get(INSTALL_PATHS.env)!.bytes);
    const withMetrics = new Map(installed.files).set(INSTALL_PATHS.env, {
      bytes: bytes(`${env}MLB_METRICS_BIND=192.168.10.11:7472\n`),
      mode: 0o100644,
    });
    const plan = planInstall(request({ gossipBind: '192.168.10.12' }), { ...installed, files: withMetrics });
    const newEnv = written(plan, INSTALL_PATHS.env).content;
    expect(envValue(newEnv, 'MLB_GOSSIP_BIND')).toBe('192.168.10.12:7946');
    expect(envValue(newEnv, 'MLB_METRICS_BIND')).toBe('192.168.10.11:7472');
    expect(plan.steps.at(-1)).toMatchObject({ kind: 'systemctl', args: ['restart', 'mlb'] });
  });

  it('puts a key readable by others back to 0600 without rewriting it', () => {
    const existing = new Map([[INSTALL_PATHS.key, { bytes: CLUSTER_KEY, mode: 0o100644 }]]);
    const plan = planInstall(request({ key: { kind: 'none' } }), facts({ files: existing }));
    expect(stepAt(plan, INSTALL_PATHS.key)).toMatchObject({ kind: 'chmod', mode: 0o600 });
  });
});

describe('withHostSettings', () => {
  it("sets the Debian package's commented-out lines and drops a later duplicate", () => {
    const packaged = '#MLB_NODE_NAME=node-a\n#MLB_GOSSIP_BIND=192.168.10.11:7946\n#MLB_JOIN=x\nMLB_GOSSIP_BIND=1.2.3.4:7946\n';
    expect(withHostSettings(packaged, { MLB_NODE_NAME: 'b', MLB_GOSSIP_BIND: '10.0.0.2:7946', MLB_JOIN: '10.0.0.1:7946' })).toBe(
      'MLB_NODE_NAME=b\nMLB_GOSSIP_BIND=10.0.0.2:7946\nMLB_JOIN=10.0.0.1:7946\n',
    );
  });
});
