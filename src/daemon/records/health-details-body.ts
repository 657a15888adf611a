/**
 * Why a node's checks fail (health/health-details.ts) as a record body: [node, epoch, seq, {service key:
 * [since, detail]}], keys ascending. Details are cut to HEALTH_DETAIL_GOSSIP_MAX_BYTES as the v1 layout cut
 * them. Pure.
 */
import type { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import type { MsgValue } from '../../gossip/codec/msgpack-reader';
import { HEALTH_DETAIL_GOSSIP_MAX_BYTES, type FailingCheck, type HealthDetails } from '../health/health-details';
import { RECORD_NODE_MAX_BYTES, RECORD_SERVICE_KEY_MAX_BYTES } from './health-report-body';
import { BadRecordField, countOf, cutText, mapEntriesOf, RecordFields, textOf, utf8Length } from './record-fields';

/**
 * Failing checks one record lists; beyond them the others still show as failing, only without why. 128 entries of
 * a 96-byte detail, a service key and a time stay near the v1 layout's 16 KiB bound (health-details.ts), which
 * bounds what a peer can make this node keep per member.
 */
const HEALTH_DETAILS_MAX_ENTRIES = 128;

export function writeHealthDetails(w: MsgpackWriter, details: HealthDetails): void {
  const entries = Object.entries(details.failing)
    .filter(([key]) => utf8Length(key) <= RECORD_SERVICE_KEY_MAX_BYTES)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, HEALTH_DETAILS_MAX_ENTRIES);
  w.arrayHeader(4).text(details.node).uint(details.epoch).uint(details.seq).mapHeader(entries.length);
  for (const [key, check] of entries) {
    w.text(key)
      .arrayHeader(2)
      .uint(Math.max(0, Math.trunc(check.since)))
      .text(cutText(check.detail, HEALTH_DETAIL_GOSSIP_MAX_BYTES));
  }
}

export function readHealthDetails(value: MsgValue): HealthDetails {
  const f = RecordFields.of(value, 'health details', 4);
  const node = f.text(RECORD_NODE_MAX_BYTES);
  const epoch = f.count();
  const seq = f.count();
  const entries: [string, FailingCheck][] = [];
  let previous: string | undefined;
  for (const [k, v] of mapEntriesOf(f.value(), 'health details', HEALTH_DETAILS_MAX_ENTRIES)) {
    const key = textOf(k, 'health details service', RECORD_SERVICE_KEY_MAX_BYTES);
    if (previous !== undefined && !(previous < key)) throw new BadRecordField(`health details: ${key} out of order`);
    previous = key;
    const check = RecordFields.of(v, `health details of ${key}`, 2);
    const since = countOf(check.value(), `health details of ${key}`);
    entries.push([key, { since, detail: check.text(HEALTH_DETAIL_GOSSIP_MAX_BYTES, true) }]);
  }
  return { node, epoch, seq, failing: Object.fromEntries(entries) };
}
