// src/daemon/remote-drain: `mlb drain NODE` from any host of the cluster, carried by gossip and authorised by the
// gossip key. Pure: drain-request-codec.ts and drain-request-table.ts; remote-drain.ts is the shell.
import type { Logger } from 'pino';
import type { Gossip } from '../../gossip/gossip-node';
import type { Clock } from '../../runtime/runtime';
import { decodeNodeMeta } from '../../gossip/node-meta';
import type { EventLog } from '../daemon-events';
import type { RecordsChannel } from '../records/records-wire';
import type { SpeakerFlags } from '../speaker-flags';
import { RemoteDrain } from './remote-drain';

export * from './drain-request-codec';
export * from './drain-request-table';
export * from './remote-drain-error';
export * from './remote-drain';

/** The speaker's RemoteDrain: its gossip, flags and event log wired in. */
export function remoteDrainFor(parts: {
  self: string;
  keyed: boolean;
  gossip: Gossip;
  /** Where requests are broadcast, pushed and received (the speaker registers the drain on it). */
  wire: RecordsChannel;
  flags: SpeakerFlags;
  events: EventLog;
  logger: Logger;
  /** The clock requests are stamped with; the real one by default. */
  runtime?: Clock;
}): RemoteDrain {
  const { gossip, events } = parts;
  return new RemoteDrain({
    self: parts.self,
    authenticated: parts.keyed,
    wire: parts.wire,
    flags: parts.flags,
    members: () => gossip.members().map((m) => ({ name: m.name, state: m.state, mlb: decodeNodeMeta(m.meta) !== undefined })),
    onDrainChanged: (draining, requestedBy) => events.record({ type: 'drainChanged', draining, requestedBy }),
    logger: parts.logger,
    ...(parts.runtime ? { runtime: parts.runtime } : {}),
  });
}
