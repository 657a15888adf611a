/**
 * The test's side of announcer-runner.ts: starts it inside a lab host's namespace, sends it commands and waits for
 * replies and log events.
 */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../support/netns-lab';
import { RunnerPeer, type RunnerEvent } from '../../support/runner-peer';

export type { RunnerEvent } from '../../support/runner-peer';

const RUNNER = fileURLToPath(new URL('./announcer-runner.ts', import.meta.url));

export class AnnouncerPeer extends RunnerPeer {
  static start(lab: NetnsLab, host: LabHost): Promise<AnnouncerPeer> {
    return new AnnouncerPeer(host.name, RunnerPeer.spawnInLab(lab, host, RUNNER)).ready();
  }

  logs(event?: string): RunnerEvent[] {
    return this.events.filter((e) => e.ev === 'log' && (event === undefined || e.event === event));
  }
}
