/**
 * A layer-2 part for a Speaker under test that touches no interface: no links, a self-check that probes nothing,
 * and an announcer that records each set of IPs it is asked to answer for (sorted), as the tests read them.
 */
import type { DesiredAnnouncement } from '../../src/announce/l2/l2-announcer-state';
import { createLogger } from '../../src/daemon/logger';
import { SelfChecker } from '../../src/daemon/self-check/self-checker';
import type { LayerTwo } from '../../src/daemon/speaker-parts';
import { formatIP } from '../../src/ip';

const silent = createLogger({ level: 'error', destination: { write: () => true } as unknown as NodeJS.WritableStream });

export function recordingLayerTwo(reconciled: string[][]): LayerTwo {
  return {
    links: { links: () => [], link: () => undefined, onChange: () => () => undefined, close: () => undefined },
    announcer: {
      reconcile: (desired: readonly DesiredAnnouncement[]) => reconciled.push(desired.map((d) => formatIP(d.ip)).sort()),
      stats: () => ({
        requestsReceived: {},
        responsesSent: {},
        gratuitousSent: {},
        drops: {},
        sendFailures: 0,
        handlerErrors: 0,
        conflicts: 0,
        socketErrors: {},
        interfaces: {},
      }),
      metrics: () => [],
      close: () => undefined,
    },
    vips: undefined,
    // Probes nothing: no interface is ever chosen for an IP here.
    selfCheck: new SelfChecker({ logger: silent, interfaces: () => [], probe: async () => ({ sent: false, macs: [], socketErrors: [] }) }),
  };
}
