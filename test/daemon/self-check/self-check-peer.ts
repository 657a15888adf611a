/** The test's side of self-check-runner.ts: starts it inside a lab host's namespace and waits for its events. */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../support/netns-lab';
import { RunnerPeer, type RunnerEvent } from '../../support/runner-peer';

export type { RunnerEvent } from '../../support/runner-peer';

const RUNNER = fileURLToPath(new URL('./self-check-runner.ts', import.meta.url));

export interface SelfCheckRunnerTiming {
  readonly intervalMs?: number;
  readonly recheckMs?: number;
  readonly forgetMs?: number;
}

export class SelfCheckPeer extends RunnerPeer {
  static start(lab: NetnsLab, host: LabHost, timing: SelfCheckRunnerTiming = {}): Promise<SelfCheckPeer> {
    const scriptArgs = [
      ...(timing.intervalMs === undefined ? [] : ['--interval-ms', String(timing.intervalMs)]),
      ...(timing.recheckMs === undefined ? [] : ['--recheck-ms', String(timing.recheckMs)]),
      ...(timing.forgetMs === undefined ? [] : ['--forget-ms', String(timing.forgetMs)]),
    ];
    return new SelfCheckPeer(host.name, RunnerPeer.spawnInLab(lab, host, RUNNER, { scriptArgs })).ready();
  }

  eventsOf(ev: string): RunnerEvent[] {
    return this.events.filter((e) => e.ev === ev);
  }
}
