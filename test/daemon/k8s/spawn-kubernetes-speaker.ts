/**
 * `mlb daemon --kubernetes` from the built bundle, as the speaker DaemonSet runs it (deploy/): the speaker service
 * account's kubeconfig on the fake API server, MetalLB's environment for the node name, namespace, pod and memberlist,
 * no announcing (the tests read the control socket and the API), its output collected for failure messages.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MLB_BUNDLE, REPO_ROOT } from '../../cli/run-cli';
import type { FakeApiServer, KubeObject } from '../../support/fake-apiserver';

const execFileAsync = promisify(execFile);

/** A speaker Pod as the DaemonSet makes it (host network, MetalLB's labels), Running at `ip`. */
export function speakerPod(namespace: string, nodeName: string, ip: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `speaker-${nodeName}`, namespace, labels: { app: 'metallb', component: 'speaker' } },
    spec: { nodeName, hostNetwork: true },
    status: { podIP: ip, phase: 'Running' },
  } as unknown as KubeObject;
}

/** `mlb status --json` of a speaker, asynchronously (the fake API server runs in this process and must keep answering); undefined while it does not answer. */
export async function speakerStatus<T>(socket: string): Promise<T | undefined> {
  try {
    const { stdout } = await execFileAsync(process.execPath, [MLB_BUNDLE, 'status', '--socket', socket, '--json'], { cwd: REPO_ROOT });
    return JSON.parse(stdout) as T;
  } catch {
    return undefined;
  }
}

export interface KubernetesSpeakerSpawn {
  readonly api: FakeApiServer;
  /** The test's directory: kubeconfig, state directory and control socket go there. */
  readonly dir: string;
  readonly namespace: string;
  readonly node: string;
  /** METALLB_ML_BIND_ADDR and METALLB_ML_BIND_PORT. */
  readonly bindAddress: string;
  readonly bindPort: number;
  /** METALLB_ML_SECRET_KEY_PATH: a directory holding `secretkey`. */
  readonly keyDir: string;
  readonly healthPort: number;
  /** Gets everything the daemon writes to stdout and stderr. */
  readonly onOutput: (text: string) => void;
}

export function spawnKubernetesSpeaker(s: KubernetesSpeakerSpawn): { socket: string; child: ChildProcess } {
  const socket = join(s.dir, `${s.node}.sock`);
  const args = [
    ...[MLB_BUNDLE, 'daemon', '--kubernetes', '--kubeconfig', s.api.kubeconfigPath(s.dir, `system:serviceaccount:${s.namespace}:speaker`)],
    ...['--no-announce', '--state-dir', join(s.dir, s.node), '--control-socket', socket, '--health-bind', `127.0.0.1:${s.healthPort}`],
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      METALLB_NODE_NAME: s.node,
      METALLB_NAMESPACE: s.namespace,
      METALLB_POD_NAME: `speaker-${s.node}`,
      METALLB_ML_BIND_ADDR: s.bindAddress,
      METALLB_ML_BIND_PORT: String(s.bindPort),
      METALLB_ML_LABELS: 'app=metallb,component=speaker',
      METALLB_ML_SECRET_KEY_PATH: s.keyDir,
    },
  });
  child.stdout?.on('data', (b: Buffer) => s.onOutput(b.toString()));
  child.stderr?.on('data', (b: Buffer) => s.onOutput(b.toString()));
  return { socket, child };
}
