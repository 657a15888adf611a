/**
 * The test's side of session-lab-runner.ts: the runner started inside a lab host's namespace, driven by JSON
 * commands (test/support/runner-peer.ts).
 */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../../support/netns-lab';
import { RunnerPeer } from '../../../support/runner-peer';

const RUNNER = fileURLToPath(new URL('./session-lab-runner.ts', import.meta.url));

export class SessionLabPeer extends RunnerPeer {
  static inLab(lab: NetnsLab, host: LabHost): Promise<SessionLabPeer> {
    return new SessionLabPeer(host.name, RunnerPeer.spawnInLab(lab, host, RUNNER)).ready();
  }
}
