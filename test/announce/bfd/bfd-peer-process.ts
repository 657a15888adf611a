/**
 * The test's side of bfd-runner.ts: starts it inside a lab host's namespace and talks to it.
 */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../support/netns-lab';
import { RunnerPeer, type RunnerEvent } from '../../support/runner-peer';

const RUNNER = fileURLToPath(new URL('./bfd-runner.ts', import.meta.url));

export class BfdPeerProcess extends RunnerPeer {
  static start(lab: NetnsLab, host: LabHost): Promise<BfdPeerProcess> {
    return new BfdPeerProcess(host.name, RunnerPeer.spawnInLab(lab, host, RUNNER)).ready();
  }

  /** The first session event of a kind for `peer` after `since` (wall-clock ms), already seen or yet to come. */
  next(kind: 'up' | 'down', peer: string, since: number, timeoutMs: number): Promise<RunnerEvent> {
    return this.waitFor((e) => e.ev === kind && e.peer === peer && (e.at as number) >= since, timeoutMs);
  }
}
