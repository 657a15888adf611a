/**
 * `mlb validate ... | head -1`: the reader goes away after one line. mlb ends quietly with 141, as a standard tool
 * stopped by SIGPIPE appears to the shell, never with a stack trace; the daemon and the lab carry on instead.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenPipeDecision, isBrokenPipe } from '../../src/cli/broken-pipe';
import { ExitCode } from '../../src/cli/exit-codes';
import { startDaemon } from '../daemon/run-daemon';
import { freeLoopbackPort } from '../support/free-port';
import { MLB_BUNDLE, REPO_ROOT } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'mlb-pipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Services in the generated file. Their allocation table (one write, ~190 bytes a row with the long names and IPv6
 * addresses below) is about 190 KB: more than the reader's first chunk plus the pipe's 64 KiB buffer, so the write
 * always meets the closed pipe, whatever the timing.
 */
const SERVICES = 1_000;
/** Kubernetes' longest name (63 characters): every row of the table is padded to it. */
const LONG_NAMESPACE = 'a-namespace-name-as-long-as-kubernetes-allows-sixty-three-chars';
const LONG_POOL = 'a-pool-name-as-long-as-kubernetes-allows-it-sixty-three-chars-x';
/** Runs of the pipeline: the failure depended on timing and showed in 3 runs of 5. */
const RUNS = 5;

function manyServices(): string {
  const services = Array.from(
    { length: SERVICES },
    (_, i) => `---
apiVersion: v1
kind: Service
metadata: { name: svc-${i}, namespace: ${LONG_NAMESPACE} }
spec: { type: LoadBalancer, ipFamilyPolicy: SingleStack, ipFamilies: [IPv6], ports: [{ port: 80, protocol: TCP }] }
`,
  );
  return `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: ${LONG_POOL}, namespace: metallb-system }
spec: { addresses: ['fd12:3456:789a:bcde:f012:3456:789a:0/112'] }
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: big, namespace: metallb-system }
${services.join('')}`;
}

/**
 * `mlb validate --config F | head -1`, run by bash as a user types it, with mlb's status from PIPESTATUS. head
 * reads one buffer and exits: the rest of the output cannot fit the pipe, so mlb's writes always meet a closed
 * pipe. (A reader in this test process instead could drain the whole output before closing, depending on timing.)
 */
function validateIntoHead(config: string): Promise<{ code: number | null; signal: string | null; firstLine: string; stderr: string }> {
  return new Promise((resolve) => {
    // eslint-disable-next-line no-template-curly-in-string -- a bash script: ${PIPESTATUS[0]} is bash's, not a template
    const script = '"$0" "$1" validate --config "$2" | head -1; exit "${PIPESTATUS[0]}"';
    const child = spawn('bash', ['-c', script, process.execPath, MLB_BUNDLE, config], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code, signal) => resolve({ code, signal, firstLine: out.split('\n')[0] ?? '', stderr }));
  });
}

describe('a closed output pipe', () => {
  it('ends mlb validate quietly with 141, every time', async () => {
    const config = join(dir, 'many.yaml');
    writeFileSync(config, manyServices());
    for (let run = 0; run < RUNS; run++) {
      const result = await validateIntoHead(config);
      expect(result.firstLine, `run ${run}`).not.toBe('');
      expect(result.stderr, `run ${run}`).toBe('');
      expect({ code: result.code, signal: result.signal }, `run ${run}`).toEqual({ code: ExitCode.outputClosed, signal: null });
    }
  });

  it('keeps the daemon serving when its log reader goes away: a later SIGTERM still stops it cleanly', async () => {
    const port = await freeLoopbackPort();
    const daemon = startDaemon([
      '--config',
      'examples/plain-host.yaml',
      '--node-name',
      'node-a',
      '--gossip-bind',
      `127.0.0.1:${port}`,
      '--state-dir',
      join(dir, 'daemon'),
      '--control-socket',
      join(dir, 'daemon.sock'),
      '--no-announce',
    ]);
    try {
      await daemon.waitFor((l) => l.event === 'serviceAnnounced');
      daemon.child.stdout!.destroy();
      // The stop logs (shutdown, serviceWithdrawn, gossipLeft ...) all meet the closed pipe.
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited()).toBe(0);
      expect(daemon.stderr.join('')).toBe('');
    } finally {
      daemon.child.kill('SIGKILL');
    }
  });

  it('ends a command that only reports, and keeps the daemon and the lab running', () => {
    expect(brokenPipeDecision('validate')).toEqual({ action: 'exit', code: 141, reason: 'outputClosed' });
    expect(brokenPipeDecision(undefined)).toMatchObject({ action: 'exit' });
    expect(brokenPipeDecision('daemon')).toEqual({ action: 'keepRunning', reason: 'changesTheHost' });
    expect(brokenPipeDecision('lab')).toEqual({ action: 'keepRunning', reason: 'changesTheHost' });
    expect(isBrokenPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
    expect(isBrokenPipe(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe(false);
  });
});
