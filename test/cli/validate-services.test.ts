/**
 * `mlb validate` on plain hosts, where the file is the whole truth and nobody else fills in what a Kubernetes
 * API server would: a service that cannot get an address is an error of the file (exit 1) at the field to
 * change, with a hint; a Service without ipFamilies takes the family of the address it requests, and a note
 * says so; Nodes carry the kubelet's labels, so MetalLB's documented `kubernetes.io/hostname` nodeSelectors
 * work, and a selector or a --node-name that matches no Node of the file is a warning (exit 0). Runs are
 * in-process (runMlbInProcess, byte-identical to the executable: in-process-equivalence.test.ts), one spawned.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMlb, runMlbInProcess } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'mlb-validate-services-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const POOLS = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: lan }
spec:
  addresses: [192.168.10.200-192.168.10.220, "2001:db8::/120"]
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: v6 }
spec:
  autoAssign: false
  addresses: ["2001:db8:1::/120"]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: l2 }
`;

/** A LoadBalancer Service named `name` in namespace demo; `lines` go under metadata (annotations) and spec. */
function service(name: string, annotations: Record<string, string>, spec: string[] = []): string {
  const notes = Object.entries(annotations)
    .map(([k, v]) => `    ${k}: "${v}"\n`)
    .join('');
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: demo
${notes ? `  annotations:\n${notes}` : ''}spec:
  type: LoadBalancer
${spec.map((l) => `  ${l}\n`).join('')}  ports: [{ port: 80 }]
`;
}

/** The 1-based line and column where `fragment` first appears in `text` after `after`. */
function at(text: string, fragment: string, after = ''): string {
  const start = text.indexOf(after);
  const index = text.indexOf(fragment, start);
  const before = text.slice(0, index).split('\n');
  return `${before.length}:${(before.at(-1) as string).length + 1}`;
}

interface Report {
  valid: boolean;
  errors: { code: string; message: string; line: number; column: number }[];
  warnings: { code: string; message: string; line: number; column: number }[];
  notes: { code: string; message: string; line: number; column: number }[];
  services: { service: string; status: string; ips?: string[] }[];
}

async function validate(file: string, extra: string[] = []): Promise<{ status: number | null; stdout: string; report: Report }> {
  const plain = await runMlbInProcess(['validate', '--config', file, ...extra]);
  const json = await runMlbInProcess(['validate', '--config', file, '--json', ...extra]);
  expect(json.status).toBe(plain.status);
  return { status: plain.status, stdout: plain.stdout, report: JSON.parse(json.stdout) as Report };
}

describe('mlb validate: services that cannot get an IP are errors of the file', () => {
  const text =
    POOLS +
    service('web', {}) +
    service('typo', { 'metallb.io/address-pool': 'lna' }) +
    service('outside', {}, ['loadBalancerIP: 10.0.0.5']) +
    service('v6-pool', { 'metallb.io/address-pool': 'v6' }) +
    service('share-a', { 'metallb.io/loadBalancerIPs': '192.168.10.210', 'metallb.io/allow-shared-ip': 'a' }) +
    service('share-b', { 'metallb.io/loadBalancerIPs': '192.168.10.210', 'metallb.io/allow-shared-ip': 'b' }).replace(
      'port: 80',
      'port: 81',
    );
  const file = write('services.yaml', text);
  const running = validate(file);
  const line = (position: string, message: string) => `${file}:${position}: error: ${message}`;

  it('exits 1 and says the file loads and the other services run', async () => {
    const run = await running;
    expect(run.status).toBe(1);
    expect(run.report.valid).toBe(false);
    expect(run.stdout).toContain(
      `${file}: invalid: 4 service(s) would get no IP; a running daemon loads the file, runs the other services and logs these errors`,
    );
    expect(run.report.services.find((s) => s.service === 'demo/web')).toMatchObject({ status: 'assigned', ips: ['192.168.10.200'] });
    expect(runMlb(['validate', '--config', file]).status, "the executable's own exit status").toBe(1);
  });

  it("points at an unknown pool's annotation and suggests the pool meant", async () => {
    const run = await running;
    expect(run.stdout.split('\n')).toContain(
      line(at(text, '"lna"'), 'service demo/typo gets no IP: unknown pool "lna" (did you mean pool "lan"?)'),
    );
  });

  it('points at an address outside every pool and lists the pools of its family', async () => {
    const run = await running;
    expect(run.stdout.split('\n')).toContain(
      line(
        at(text, '10.0.0.5'),
        'service demo/outside gets no IP: ["10.0.0.5"] is not allowed in config (10.0.0.5 is in no pool; the pools: "lan" 192.168.10.200-192.168.10.220 2001:db8::/120)',
      ),
    );
  });

  it('says which ipFamilies fit a pool of the other family', async () => {
    const run = await running;
    expect(run.stdout.split('\n')).toContain(
      line(
        at(text, '"v6"'),
        'service demo/v6-pool gets no IP: no available IPs in pool v6 for ipv4 IPFamily (the pool has only IPv6 addresses: add spec.ipFamilies: [IPv6])',
      ),
    );
  });

  it('names the service holding a shared address and both sharing keys', async () => {
    const run = await running;
    expect(run.stdout.split('\n')).toContain(
      line(
        at(text, '"b"'),
        'service demo/share-b gets no IP: can\'t change sharing key for "demo/share-b", address also in use by demo/share-a (demo/share-a holds it with metallb.io/allow-shared-ip "a", this one has "b": give both the same)',
      ),
    );
  });

  it('lists the same errors, with positions and one stable code, in --json', async () => {
    const run = await running;
    expect(run.report.errors.map((e) => `${e.line}:${e.column} ${e.code}`)).toEqual([
      `${at(text, '"lna"')} serviceGetsNoIP`,
      `${at(text, '10.0.0.5')} serviceGetsNoIP`,
      `${at(text, '"v6"')} serviceGetsNoIP`,
      `${at(text, '"b"')} serviceGetsNoIP`,
    ]);
  });

  it('points at written ipFamilies that do not fit the requested address', async () => {
    const wrong = POOLS + service('wrong', {}, ['ipFamilies: [IPv4]', 'loadBalancerIP: "2001:db8::7"']);
    const { status, stdout } = await validate(write('wrong-family.yaml', wrong));
    expect(status).toBe(1);
    expect(stdout).toContain(
      `:${at(wrong, 'ipFamilies')}: error: service demo/wrong gets no IP: requested loadBalancer IP(s) ["2001:db8::7"] does not match the ipFamily of the service (set spec.ipFamilies: [IPv6])`,
    );
  });
});

describe('mlb validate: ipFamilies mlb chooses for a Service that writes none', () => {
  const text =
    POOLS +
    service('v6', {}, ['loadBalancerIP: "2001:db8::5"']) +
    service('dual', { 'metallb.io/loadBalancerIPs': '192.168.10.201,2001:db8::6' }) +
    service('plain', {});
  const file = write('families.yaml', text);
  const running = validate(file);

  it('gives a Service the family of the address it requests, both families under PreferDualStack (exit 0)', async () => {
    const run = await running;
    expect(run.status).toBe(0);
    const byName = new Map(run.report.services.map((s) => [s.service, s]));
    expect(byName.get('demo/v6')).toMatchObject({ status: 'assigned', ips: ['2001:db8::5'] });
    expect(byName.get('demo/dual')).toMatchObject({ status: 'assigned', ips: ['192.168.10.201', '2001:db8::6'] });
    expect(byName.get('demo/plain')).toMatchObject({ status: 'assigned', ips: ['192.168.10.200'] });
  });

  it('says what it chose and why, at the field it came from', async () => {
    const run = await running;
    const lines = run.stdout.split('\n');
    expect(lines).toContain(
      `${file}:${at(text, '"2001:db8::5"')}: note: service demo/v6: ipFamilies defaulted to [IPv6] (none written; from spec.loadBalancerIP)`,
    );
    expect(lines).toContain(
      `${file}:${at(text, '"192.168.10.201')}: note: service demo/dual: ipFamilies defaulted to [IPv4, IPv6] and ipFamilyPolicy to PreferDualStack (none written; from metallb.io/loadBalancerIPs)`,
    );
    expect(lines).toContain(
      `${file}:${at(text, 'spec:', 'name: plain')}: note: service demo/plain: ipFamilies defaulted to [IPv4] (none written, no IP requested)`,
    );
    expect(run.report.notes.map((n) => n.code)).toEqual(['ipFamiliesDefaulted', 'ipFamiliesDefaulted', 'ipFamiliesDefaulted']);
    expect(run.report.warnings).toEqual([]);
  });
});

describe('mlb validate: Nodes on plain hosts', () => {
  const nodes = ['node-1', 'node-2'].map((n) => `---\napiVersion: v1\nkind: Node\nmetadata: { name: ${n} }\n`).join('');
  const l2 = (hostname: string) => `---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: pinned }
spec:
  nodeSelectors:
    - matchLabels:
        kubernetes.io/hostname: ${hostname}
`;
  const pools = POOLS.replace(/---\napiVersion: metallb.io\/v1beta1\nkind: L2Advertisement\nmetadata: \{ name: l2 \}\n/, '');

  it("selects a host by the kubelet's kubernetes.io/hostname label, as MetalLB's docs show", async () => {
    const file = write('hostname.yaml', pools + l2('node-2') + nodes + service('web', {}));
    const run = await validate(file);
    expect(run.status).toBe(0);
    expect(run.report.warnings).toEqual([]);
    const explain = await runMlbInProcess(['explain', '--config', file, '--nodes', 'node-1,node-2', '--json']);
    expect(explain.status).toBe(0);
    const [web] = JSON.parse(explain.stdout) as { winner: string; candidates: { node: string; eligible: boolean }[] }[];
    expect(web?.winner).toBe('node-2');
    expect(web?.candidates.find((c) => c.node === 'node-1')?.eligible).toBe(false);
  });

  it("warns, at the selector, when it matches none of the file's Nodes (exit 0)", async () => {
    const text = pools + l2('node-3') + nodes + service('web', {});
    const file = write('no-node.yaml', text);
    const run = await validate(file);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')).toContain(
      `${file}:${at(text, 'matchLabels')}: warning: L2Advertisement "pinned": nodeSelectors[0] matches none of the file's Nodes (node-1, node-2), so it selects no host unless --node-labels labels one (did you mean "node-1"?)`,
    );
    expect(run.report.warnings.map((w) => w.code)).toEqual(['nodeSelectorMatchesNoNode']);
  });

  it("warns when --node-name is not among the file's Nodes (exit 0), and not when it is", async () => {
    const text = POOLS + nodes + service('web', {});
    const file = write('node-name.yaml', text);
    const run = await validate(file, ['--node-name', 'node-1.example.com']);
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')).toContain(
      `${file}:${at(text, 'apiVersion: v1\nkind: Node')}: warning: --node-name "node-1.example.com" is not among the file's Nodes (node-1, node-2): this host gets none of their labels or conditions (did you mean "node-1"?)`,
    );
    expect(run.report.warnings.map((w) => w.code)).toEqual(['nodeNameNotInConfig']);
    expect((await validate(file, ['--node-name', 'node-2'])).report.warnings).toEqual([]);
  });

  it('refuses an empty file (exit 1), as before', async () => {
    const run = await validate(write('empty.yaml', ''));
    expect(run.status).toBe(1);
    expect(run.report.errors.map((e) => e.code)).toEqual(['fileEmpty']);
  });
});
