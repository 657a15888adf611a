/**
 * `mlb explain --config` over a large configuration writes each explanation as it is made: the output is complete
 * and the process's peak memory stays bounded (it used to build every explanation and one string of all of them,
 * which at 10,000 services over 1,000 nodes ended in "RangeError: Invalid string length" at 1.4 GB).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MLB_BUNDLE, REPO_ROOT } from './run-cli';

/** 2,000 services over 1,000 nodes: two million candidate rows; built at once they took 830 MB here. */
const SERVICES = 2_000;
const NODES = 1_000;
/** Generous: a streaming run peaks near 130 MB; the old way passed 800 MB. */
const PEAK_BOUND_KB = 400 * 1024;
/** How often the child's high-water mark is read; VmHWM only grows, so the last reading is its peak so far. */
const SAMPLE_MS = 100;

const dir = mkdtempSync(join(tmpdir(), 'mlb-explain-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function largeConfig(): string {
  let text =
    'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: lan\n  namespace: metallb-system\nspec:\n  addresses:\n    - 10.0.0.0/16\n' +
    '---\napiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: lan\n  namespace: metallb-system\n';
  for (let i = 0; i < SERVICES; i++) {
    text += `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-${i}\n  namespace: demo\nspec:\n  type: LoadBalancer\n  ports:\n    - port: 80\n`;
  }
  return text;
}

function highWaterKb(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // already gone
  }
}

describe('mlb explain --config on a large configuration', () => {
  it('prints every explanation with bounded memory', async () => {
    const config = join(dir, 'large.yaml');
    writeFileSync(config, largeConfig());
    const nodes = Array.from({ length: NODES }, (_, i) => `node-${i}`).join(',');
    const child = spawn(process.execPath, [MLB_BUNDLE, 'explain', '--config', config, '--nodes', nodes], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let peakKb = 0;
    let headers = 0;
    let lastHeader = '';
    let partial = '';
    // Count as it streams: holding gigabytes of output here would measure this process, not the child.
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (/^demo\/svc-\d+ \S+ \(layer2\): owner node-\d+$/.test(line)) {
          headers++;
          lastHeader = line;
        }
      }
    });
    const sampler = setInterval(() => {
      peakKb = Math.max(peakKb, highWaterKb(child.pid as number) ?? 0);
    }, SAMPLE_MS);
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(sampler);
    expect(status).toBe(0);
    expect(headers).toBe(SERVICES);
    expect(lastHeader).toMatch(/^demo\/svc-999 /); // services are listed by namespace/name, svc-999 sorts last
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(PEAK_BOUND_KB);
  }, 300_000);
});
