/**
 * A health report (health/health-report.ts) as a record body: [node, epoch, seq, {service key: passing}]. The
 * map's keys are written in ascending order, so a report has one encoding. Pure.
 */
import type { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import type { MsgValue } from '../../gossip/codec/msgpack-reader';
import type { HealthReport } from '../health/health-report';
import { BadRecordField, mapEntriesOf, RecordFields, textOf } from './record-fields';

/** Kubernetes node names are DNS subdomains (253 bytes); one more byte to spare keeps the v1 layout's u8 limit. */
export const RECORD_NODE_MAX_BYTES = 255;
/** "namespace/name": a DNS label (63), "/", a DNS subdomain (253); the v1 layout's u8 limit bounds it too. */
export const RECORD_SERVICE_KEY_MAX_BYTES = 255;
/** Services one report may list: the v1 layout's u16 count, far beyond one host's health-checked services. */
const HEALTH_REPORT_MAX_SERVICES = 0xffff;

export function writeHealthReport(w: MsgpackWriter, report: HealthReport): void {
  const entries = Object.entries(report.results).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  w.arrayHeader(4).text(report.node).uint(report.epoch).uint(report.seq).mapHeader(entries.length);
  for (const [key, passing] of entries) w.text(key).bool(passing);
}

export function readHealthReport(value: MsgValue): HealthReport {
  const f = RecordFields.of(value, 'health report', 4);
  const node = f.text(RECORD_NODE_MAX_BYTES);
  const epoch = f.count();
  const seq = f.count();
  const entries: [string, boolean][] = [];
  let previous: string | undefined;
  for (const [k, v] of mapEntriesOf(f.value(), 'health report results', HEALTH_REPORT_MAX_SERVICES)) {
    const key = textOf(k, 'health report service', RECORD_SERVICE_KEY_MAX_BYTES);
    // Ascending keys: a report has one encoding, and a key listed twice cannot say two things.
    if (previous !== undefined && !(previous < key)) throw new BadRecordField(`health report: ${key} out of order`);
    if (typeof v !== 'boolean') throw new BadRecordField(`health report: ${key} is not passing or failing`);
    previous = key;
    entries.push([key, v]);
  }
  // Entries, not assignment: a key called "__proto__" must stay a key.
  return { node, epoch, seq, results: Object.fromEntries(entries) };
}
