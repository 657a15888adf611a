/**
 * Runs the real kubectl (1.32 on this image) against a fake API server, for tests. Each test gets its own HOME and
 * cache directory (kubectl caches discovery under $HOME/.kube/cache; a cache from another fake on another port
 * would leak between tests), a short --request-timeout and a process timeout, and never blocks the event loop
 * (the fake serves from the same process).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = process.env['KUBECTL'] ?? '/usr/bin/kubectl';
/** Per-request bound passed to kubectl: far above the fake's answer time, so only a hang hits it. */
const REQUEST_TIMEOUT = '5s';
/** Whole-process bound, for the commands that watch (get -w, wait) and are ended by --request-timeout. */
const PROCESS_TIMEOUT_MS = 15_000;

/** Whether kubectl is present; outside CI a missing kubectl skips the kubectl tests, under CI it is a failure. */
export function kubectlAvailable(): boolean {
  const present = existsSync(KUBECTL);
  if (!present && process.env['CI']) throw new Error(`${KUBECTL} missing (CI is set, so this is a failure)`);
  return present;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  run(args: string[], options?: { input?: string; timeoutMs?: number }): Promise<KubectlResult>;
  /** Like run, but a non-zero exit is an error carrying stderr. */
  ok(args: string[], options?: { input?: string; timeoutMs?: number }): Promise<string>;
  home: string;
  cleanup(): void;
}

export function kubectlFor(kubeconfig: string): Kubectl {
  const home = mkdtempSync(join(tmpdir(), 'fka-kubectl-'));
  const env = { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache'), KUBECONFIG: kubeconfig };
  const run = (args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(home, 'cache'), `--request-timeout=${REQUEST_TIMEOUT}`, ...args],
        { env, encoding: 'utf8', timeout: options.timeoutMs ?? PROCESS_TIMEOUT_MS },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
      if (options.input !== undefined) child.stdin?.end(options.input);
      else child.stdin?.end();
    });
  return {
    run,
    async ok(args, options) {
      const result = await run(args, options);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return result.stdout;
    },
    home,
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}
