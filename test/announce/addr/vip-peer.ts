/**
 * The test's side of vip-runner.ts: starts it inside a lab host's namespace, sends it commands, and can crash it
 * (SIGKILL: no cleanup runs, exactly what a crashed daemon leaves behind).
 */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../support/netns-lab';
import { RunnerPeer, type RunnerEvent } from '../../support/runner-peer';

const RUNNER = fileURLToPath(new URL('./vip-runner.ts', import.meta.url));
const CRASH_TIMEOUT_MS = 5_000;

export class VipPeer extends RunnerPeer {
  static start(lab: NetnsLab, host: LabHost): Promise<VipPeer> {
    return new VipPeer(host.name, RunnerPeer.spawnInLab(lab, host, RUNNER)).ready();
  }

  logs(event?: string): RunnerEvent[] {
    return this.events.filter((e) => e.ev === 'log' && (event === undefined || e.event === event));
  }

  /** SIGKILL (`ip netns exec` execs node, so the pid is node's) and wait for the exit. */
  async crash(): Promise<void> {
    if (this.pid !== undefined) process.kill(this.pid, 'SIGKILL');
    await this.waitFor((e) => e.ev === 'exit', CRASH_TIMEOUT_MS);
  }
}
