/**
 * Every malformed configuration under test/fixtures/invalid must make `mlb validate` exit 1 with at least one
 * "file:line:column: error: ..." line and never a stack trace; the messages themselves are asserted one by one
 * in test/model. Each file runs in-process (runMlbInProcess, held byte-identical to the executable by
 * in-process-equivalence.test.ts); the exit status the OS reports is shown by spawned runs at the end.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runMlb, runMlbInProcess } from './run-cli';

const INVALID_DIR = 'test/fixtures/invalid';
const files = readdirSync(`${REPO_ROOT}${INVALID_DIR}`)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('mlb validate on malformed configurations', () => {
  it('has at least 30 of them', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  it.each(files)('%s: exit 1, a position and a message, no stack trace', async (name) => {
    const path = `${INVALID_DIR}/${name}`;
    const run = await runMlbInProcess(['validate', '--config', path]);
    expect(run.status).toBe(1);
    const escaped = path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(run.stdout).toMatch(new RegExp(`^${escaped}:\\d+:\\d+: error: \\S.+$`, 'm'));
    expect(run.stdout + run.stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+\)?\n/);
    const json = await runMlbInProcess(['validate', '--config', path, '--json']);
    expect(json.status).toBe(1);
    const report = JSON.parse(json.stdout) as { valid: boolean; errors: { line: number; column: number; message: string }[] };
    expect(report.valid).toBe(false);
    expect(report.errors.length).toBeGreaterThan(0);
    expect(report.errors.every((e) => e.line >= 1 && e.column >= 1 && e.message.length > 0)).toBe(true);
  });

  // Load-time refusals MetalLB makes (config.go validateBGPAdvPerPool, addressPoolServiceAllocationsFromCR,
  // passwordFromSecretForPeer, validation.go validateConfig and DiscardFRROnly) and mlb's echo mode refusal:
  // the text users search for, at the field to change.
  it.each([
    [
      'adv-local-pref-conflict.yaml',
      '25:14',
      'invalid local preference 200: local preferernce 100 was already set for the same type of BGP update. Check existing BGP advertisements with common pools and aggregation lengths (',
    ],
    [
      'adv-local-pref-conflict-nodes.yaml',
      '62:14',
      'invalid local preference 300: local preferernce 100 was already set for the same type of BGP update.',
    ],
    ['peer-bfd-echo-mode.yaml', '21:15', "peer tor uses bfd profile echo, which enables echoMode: mlb's BFD does not implement echo mode"],
    [
      'peer-bfd-echo-ipv6.yaml',
      '18:15',
      'pool v6 has bgpadvertisement v6-to-tor which references peer tor which has bfd echo enabled, which is not possible',
    ],
    ['pool-duplicate-namespace.yaml', '14:9', 'duplicate definition in namespaces field: "web"'],
    ['peer-frr-only-fields.yaml', '13:8', 'peer 192.168.10.1 has vrf set on native bgp mode'],
    ['peer-frr-only-fields.yaml', '23:14', 'peer unnumbered has interface set on native bgp mode'],
    ['peer-password-secret.yaml', '11:3', 'secret ref not found for peer config "metallb-system"/"r"'],
  ])("%s: exit 1 and, at %s, MetalLB's meaning", async (name, position, text) => {
    const path = `${INVALID_DIR}/${name}`;
    const run = await runMlbInProcess(['validate', '--config', path]);
    expect(run.status).toBe(1);
    const expected = `${path}:${position}: error: ${text}`;
    expect(
      run.stdout.split('\n').some((line) => line.startsWith(expected)),
      run.stdout,
    ).toBe(true);
  });

  it('says so when the file does not exist (exit 1, no stack)', () => {
    const run = runMlb(['validate', '--config', 'no/such/file.yaml']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('mlb: cannot read --config no/such/file.yaml: no such file\n');
  });

  it('accepts both examples', async () => {
    for (const example of ['examples/plain-host.yaml', 'examples/bgp.yaml']) {
      const run = await runMlbInProcess(['validate', '--config', example, '--json']);
      expect(run.status, run.stdout).toBe(0);
      const report = JSON.parse(run.stdout) as { valid: boolean; errors: unknown[]; services: { status: string }[] };
      expect(report.errors).toEqual([]);
      expect(report.services.every((s) => s.status === 'assigned')).toBe(true);
    }
  });

  it('the executable itself exits 1 on a malformed file and 0 on a valid one', () => {
    const invalid = runMlb(['validate', '--config', `${INVALID_DIR}/${files[0]}`]);
    expect(invalid.status).toBe(1);
    expect(invalid.stdout).toMatch(/: error: \S/);
    expect(runMlb(['validate', '--config', 'examples/plain-host.yaml']).status).toBe(0);
  });
});
