/**
 * `mlb lab` from the command line, without building a lab: the root refusal a user without sudo sees, usage errors,
 * and the two hidden subcommands (serve, probe) over loopback. Runs the built bundle (dist/mlb.mjs, or
 * LAB_TEST_BUNDLE) and skips when it has no `mlb lab` yet. As root, the refusal is checked as user nobody.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEEDS_ROOT_MESSAGE } from '../../src/cli/lab/lab-errors';
import { parseProbeLine } from '../../src/cli/lab/probe-samples';
import { MLB_BUNDLE } from '../cli/run-cli';

const bundle = process.env.LAB_TEST_BUNDLE ?? MLB_BUNDLE;
const hasLab =
  existsSync(bundle) && spawnSync(process.execPath, [bundle, 'lab', '--help'], { encoding: 'utf8' }).stdout.includes('mlb lab demo');
const skip = hasLab ? undefined : `${bundle} has no "mlb lab" command yet (register labCommand in src/cli/main.ts, then npm run build)`;
if (skip) console.warn(`skipping the mlb lab command tests: ${skip}`);

/** Runs mlb as a user without root: directly when we are not root, through setpriv as nobody when we are. */
function asNonRoot(args: string[]): { status: number | null; stdout: string; stderr: string } | undefined {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MLB')));
  const argv =
    process.geteuid?.() === 0
      ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bundle, ...args]
      : [process.execPath, bundle, ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env, timeout: 20_000 });
  if (r.error) return undefined; // No setpriv here.
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function mlb(args: string[]) {
  const r = spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(skip !== undefined)('mlb lab on the command line', () => {
  it.each([['up'], ['down'], ['demo'], ['kill node-2'], ['health node-2 fail']])(
    'lab %s without root exits 1 saying it needs root',
    (command) => {
      const run = asNonRoot(['lab', ...command.split(' ')]);
      if (!run) return; // setpriv missing: nothing to run as another user.
      expect(run.stderr).toBe(`mlb: ${NEEDS_ROOT_MESSAGE}\n`);
      expect(run.status).toBe(1);
    },
  );

  it('rejects a bad --nodes or --name as a usage error (exit 2), before asking for root', () => {
    const nodes = asNonRoot(['lab', 'up', '--nodes', '1']) ?? mlb(['lab', 'up', '--nodes', '1']);
    expect(nodes.status).toBe(2);
    expect(nodes.stderr).toContain('--nodes must be a whole number from 2 to 32 (got 1)');
    const name = mlb(['lab', 'demo', '--name', 'Bad Name']);
    expect(name.status).toBe(2);
    expect(name.stderr).toContain('lab name "Bad Name"');
    expect(mlb(['lab', 'demo', '--kill', 'everything']).status).toBe(2);
  });

  it('hides serve and probe from the help', () => {
    const help = mlb(['lab', '--help']).stdout;
    expect(help).toContain('mlb lab up');
    expect(help).not.toContain('serve');
    expect(help).not.toContain('probe');
  });

  it('serve answers its node name until SIGTERM; probe prints one JSON line per request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mlb-lab-cmd-'));
    const server = spawn(
      process.execPath,
      [bundle, 'lab', 'serve', '--node', 'node-5', '--port', '0', '--health-file', join(dir, 'health')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const listening = await new Promise<{ port: number }>((resolve, reject) => {
        server.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString('utf8')) as { port: number }));
        server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const probe = mlb(['lab', 'probe', '--target', `127.0.0.1:${listening.port}`, '--count', '3', '--interval-ms', '10']);
      expect(probe.status, probe.stderr).toBe(0);
      const samples = probe.stdout.trim().split('\n').map(parseProbeLine);
      expect(samples).toHaveLength(3);
      for (const s of samples) expect(s).toMatchObject({ ok: true, node: 'node-5' });
      const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      server.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('probe refuses a target that is not IP:PORT', () => {
    const run = mlb(['lab', 'probe', '--target', 'example.com:80', '--count', '1']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--target');
  });
});
