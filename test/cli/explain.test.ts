import { describe, expect, it } from 'vitest';
import { runMlb, runMlbInProcess } from './run-cli';

interface Candidate {
  node: string;
  rank: number | null;
  eligible: boolean;
  reason: string;
}
interface Explanation {
  service: string;
  ip: string;
  protocol: string;
  winner: string | null;
  announcing: string[];
  candidates: Candidate[];
}

/** In-process: runMlbInProcess answers as the executable (in-process-equivalence.test.ts) without a node start-up. */
async function explain(args: string[]): Promise<Explanation[]> {
  const run = await runMlbInProcess(['explain', ...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Explanation[];
}

describe('mlb explain --config', () => {
  it('elects exactly one owner per layer 2 IP and ranks every candidate', async () => {
    const all = await explain(['--config', 'examples/plain-host.yaml', '--nodes', 'node-a,node-b,node-c']);
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const e of all) {
      expect(Object.keys(e).slice(0, 6)).toEqual(['service', 'ip', 'protocol', 'winner', 'announcing', 'candidates']);
      expect(e.protocol).toBe('layer2');
      expect(e.announcing).toEqual([e.winner]);
      expect(e.candidates.map((c) => c.rank)).toEqual([1, 2, 3]);
      expect(e.candidates[0]).toEqual({ node: e.winner, rank: 1, eligible: true, reason: 'owner', hashPosition: 1 });
      expect(e.candidates.slice(1).every((c) => c.reason === 'notOwner')).toBe(true);
    }
  });

  it('gives the shared IP one owner for both services, and accepts any spelling of an IP', async () => {
    const shared = await explain(['192.168.10.210', '--config', 'examples/plain-host.yaml', '--nodes', 'node-a,node-b,node-c']);
    expect(shared.map((e) => e.service).sort()).toEqual(['demo/dns-tcp', 'demo/dns-udp']);
    expect(new Set(shared.map((e) => e.winner)).size).toBe(1);
    const v6 = await explain(['FD00:10:0:0::200', '--config', 'examples/plain-host.yaml', '--nodes', 'node-a,node-b,node-c']);
    expect(v6).toHaveLength(1);
    expect(v6[0]?.ip).toBe('fd00:10::200');
  });

  it('moves an IP only when its owner leaves', async () => {
    const before = (await explain(['demo/web', '--config', 'examples/plain-host.yaml', '--nodes', 'node-a,node-b,node-c']))[0]!;
    const others = ['node-a', 'node-b', 'node-c'].filter((n) => n !== before.winner);
    const ownerGone = (await explain(['demo/web', '--config', 'examples/plain-host.yaml', '--nodes', others.join(',')]))[0]!;
    expect(ownerGone.winner).toBe(before.candidates[1]?.node);
    expect(ownerGone.candidates.find((c) => c.node === before.winner)).toMatchObject({
      eligible: false,
      rank: null,
      reason: 'notLiveMember',
    });
    const loser = before.candidates[2]!.node;
    const loserGone = (
      await explain([
        'demo/web',
        '--config',
        'examples/plain-host.yaml',
        '--nodes',
        ['node-a', 'node-b', 'node-c'].filter((n) => n !== loser).join(','),
      ])
    )[0]!;
    expect(loserGone.winner).toBe(before.winner);
  });

  it('shows BGP announcing nodes and the excluded control plane with its reason', async () => {
    const [e] = await explain(['--config', 'examples/bgp.yaml']);
    expect(e).toMatchObject({ service: 'demo/hello-lb', ip: '192.168.20.100', protocol: 'bgp', winner: null });
    expect(e!.announcing).toEqual(['k8s-node-1', 'k8s-node-2']);
    expect(e!.candidates.find((c) => c.node === 'k8s-master-1')).toMatchObject({ eligible: false, reason: 'nodeLabeledExcludeBalancers' });
  });

  it('says plainly when a target matches nothing (exit 1)', async () => {
    const run = await runMlbInProcess(['explain', '10.9.9.9', '--config', 'examples/plain-host.yaml']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('mlb: no service has the IP 10.9.9.9; service IPs in this configuration: demo/');
    const name = await runMlbInProcess(['explain', 'demo/nothing', '--config', 'examples/plain-host.yaml']);
    expect(name.status).toBe(1);
    expect(name.stderr).toContain('mlb: no service is named "demo/nothing"; service IPs in this configuration: demo/');
  });

  it('exits 1 after the explanation when nobody announces an IP asked about, or any IP when none is named', async () => {
    const file = 'test/cli/fixtures/nobody-announces.yaml';
    const orphan = await runMlbInProcess(['explain', '192.168.20.5', '--config', file]);
    expect(orphan.stdout).toMatch(/^demo\/orphan 192\.168\.20\.5 \(layer2\): NOBODY ANNOUNCES\n/);
    expect(orphan.stderr).toBe('mlb: nobody announces 192.168.20.5 (demo/orphan): the reasons are above\n');
    expect(orphan.status).toBe(1);
    const json = await runMlbInProcess(['explain', 'demo/orphan', '--config', file, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject([{ service: 'demo/orphan', winner: null, announcing: [] }]);
    expect(json.status).toBe(1);
    expect(runMlb(['explain', '--config', file]).status, "the executable's own exit status").toBe(1);
    const web = await runMlbInProcess(['explain', 'demo/web', '--config', file]);
    expect(web).toMatchObject({ status: 0, stderr: '' });
  });

  it('prints a table a person can read', async () => {
    const run = await runMlbInProcess(['explain', 'demo/web', '--config', 'examples/plain-host.yaml', '--nodes', 'node-a,node-b,node-c']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^demo\/web 192\.168\.10\.\d+ \(layer2\): owner node-[abc]\n/);
    expect(run.stdout).toContain('first in hash order');
  });
});

describe('mlb explain --nodes naming nodes the file does not describe', () => {
  it('names the first few on stderr and counts the rest, instead of a line per node', async () => {
    const nodes = Array.from({ length: 40 }, (_, i) => `extra-${i}`).join(',');
    const run = await runMlbInProcess(['explain', '--config', 'examples/plain-host.yaml', '--nodes', nodes]);
    expect(run.status).toBe(0);
    const notes = run.stderr.trim().split('\n');
    expect(notes).toHaveLength(6);
    expect(notes[0]).toBe('note: node extra-0 has no v1 Node document in examples/plain-host.yaml: taken as unlabelled');
    expect(notes[5]).toBe('note: and 35 more of --nodes (40 in all) have no v1 Node document: taken as unlabelled');
  });
});
