/**
 * What `mlb install` asks at a terminal: only what it was not given, offering what /etc/default/mlb already says,
 * and the key only when the host has none. The questions go through an injected ask(), as a terminal would answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envExampleText, systemdUnitText } from '../../src/cli/install/embedded-files';
import { installRequest, type InstallFlags } from '../../src/cli/install/install-request';
import type { HostFacts } from '../../src/cli/install/install-plan';
import { INSTALL_PATHS } from '../../src/cli/install/install-paths';

const work = mkdtempSync(join(tmpdir(), 'mlb-install-request-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const CONFIG = join(__dirname, '../../examples/plain-host.yaml');
const binary = join(work, 'mlb');
writeFileSync(binary, 'stand-in');
const keyFile = join(work, 'gossip.key');
writeFileSync(keyFile, 'c2hhcmVkIGtleSBvZiB0aGUgY2x1c3RlciwgMzIgYnl0ZXM=\n');

const flags = (overrides: Partial<InstallFlags> = {}): InstallFlags => ({
  root: work,
  firstHost: false,
  force: false,
  start: false,
  binary,
  ...overrides,
});
function facts(files: HostFacts['files'] = new Map()): HostFacts {
  return {
    files,
    binary: undefined,
    dirs: new Set(),
    groupExists: undefined,
    addresses: undefined,
    unit: undefined,
    envExample: envExampleText(),
    unitText: systemdUnitText(),
  };
}

/** An ask() answering from a list, recording each question and the value it offered. */
function answering(answers: string[]) {
  const asked: { question: string; suggested: string }[] = [];
  const ask = async (question: string, suggested: string) => {
    asked.push({ question, suggested });
    const answer = answers.shift() ?? '';
    return answer === '' ? suggested : answer;
  };
  return { ask, asked };
}

describe('installRequest at a terminal', () => {
  it('asks for each per-host value not given, the key, and the configuration; a blank key answer makes one', async () => {
    const { ask, asked } = answering(['node-b', '192.168.10.12', '192.168.10.11:7946', '', CONFIG]);
    const request = await installRequest(flags(), facts(), false, ask);
    expect(asked.map((a) => a.question)).toEqual([
      "This host's node name",
      "This host's gossip address, IP[:PORT]",
      "The other hosts' gossip addresses, IP:PORT,... (empty: none yet)",
      "The cluster's gossip key, copied from a host already installed (empty: this is the first host, make one)",
      "The cluster's mlb.yaml (the same file on every host)",
    ]);
    expect(asked[0]!.suggested).toBe(hostname());
    expect(request).toMatchObject({
      nodeName: 'node-b',
      gossipBind: '192.168.10.12',
      join: ['192.168.10.11:7946'],
      key: { kind: 'generate' },
    });
    expect(request.config).toMatchObject({ from: CONFIG, errors: [] });
  });

  it('asks nothing that a flag gave', async () => {
    const { ask, asked } = answering([]);
    await installRequest(
      flags({ nodeName: 'node-b', gossipBind: '192.168.10.12', join: '', gossipKeyFrom: keyFile, config: CONFIG }),
      facts(),
      false,
      ask,
    );
    expect(asked).toEqual([]);
  });

  it('offers the installed values, and asks no key when the host has one: Enter keeps the host as it is', async () => {
    const env = 'MLB_NODE_NAME=node-c\nMLB_GOSSIP_BIND=192.168.10.13:7946\nMLB_JOIN=192.168.10.11:7946\n';
    const installed = new Map([
      [INSTALL_PATHS.env, { bytes: new TextEncoder().encode(env), mode: 0o100644 }],
      [INSTALL_PATHS.key, { bytes: new TextEncoder().encode('x'.repeat(32)), mode: 0o100600 }],
    ]);
    const { ask, asked } = answering([]);
    const request = await installRequest(flags({ config: CONFIG }), facts(installed), false, ask);
    expect(asked.map((a) => a.suggested)).toEqual(['node-c', '192.168.10.13:7946', '192.168.10.11:7946']);
    expect(request).toMatchObject({
      nodeName: 'node-c',
      gossipBind: '192.168.10.13:7946',
      join: ['192.168.10.11:7946'],
      key: { kind: 'none' },
    });
  });

  it('without a terminal (--yes) takes the installed values and asks nothing', async () => {
    const env = 'MLB_NODE_NAME=node-c\nMLB_GOSSIP_BIND=192.168.10.13:7946\n';
    const request = await installRequest(
      flags({ config: CONFIG }),
      facts(new Map([[INSTALL_PATHS.env, { bytes: new TextEncoder().encode(env), mode: 0o100644 }]])),
      false,
      undefined,
    );
    expect(request).toMatchObject({ nodeName: 'node-c', gossipBind: '192.168.10.13:7946', join: [], key: { kind: 'none' } });
  });
});
