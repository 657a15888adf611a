/** What one received payload of records decodes to, whichever form it came in (records-codec.ts). Pure. */
import type { RecordDropReason, GossipRecord } from './record-kinds';

export interface ReceivedRecords {
  readonly records: readonly GossipRecord[];
  /** The records in it that were dropped (damaged, or of a kind this release does not know), each with why. */
  readonly drops: readonly { readonly reason: RecordDropReason; readonly detail: string }[];
}
