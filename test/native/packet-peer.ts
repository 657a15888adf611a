/**
 * The test's side of packet-runner.ts: starts it inside a lab host's namespace, sends it commands one at a time
 * and waits for the events it prints (frames, socket errors, burst results).
 */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../support/netns-lab';
import { RunnerPeer, type RunnerEvent } from '../support/runner-peer';

export type { RunnerEvent } from '../support/runner-peer';

const RUNNER = fileURLToPath(new URL('./packet-runner.ts', import.meta.url));

export class PacketPeer extends RunnerPeer {
  /** The runner inside a lab host's namespace. */
  static inLab(lab: NetnsLab, host: LabHost): Promise<PacketPeer> {
    return new PacketPeer(host.name, RunnerPeer.spawnInLab(lab, host, RUNNER)).ready();
  }

  /** The runner in this namespace, behind a wrapper command (e.g. setpriv dropping a capability). */
  static withWrapper(name: string, wrapper: string[]): Promise<PacketPeer> {
    return new PacketPeer(name, RunnerPeer.spawnWrapped(wrapper, RUNNER)).ready();
  }

  /** Frames received so far on one socket, optionally only those equal to `hex`. */
  frames(sock: string, hex?: string): RunnerEvent[] {
    return this.events.filter((e) => e.ev === 'frame' && e.sock === sock && (hex === undefined || e.hex === hex));
  }
}
