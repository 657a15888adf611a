/**
 * A drain request (remote-drain/drain-request-codec.ts) as a record body:
 *   [target, requestedBy, seq, at, action code, outcome code, detail?]
 * with the v1 layout's append-only codes (DRAIN_ACTION_CODES, DRAIN_OUTCOME_CODES). Pure.
 */
import type { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import type { MsgValue } from '../../gossip/codec/msgpack-reader';
import {
  DRAIN_ACTION_CODES,
  DRAIN_OUTCOME_CODES,
  MAX_DRAIN_DETAIL_BYTES,
  MAX_DRAIN_TIME_MS,
  type DrainRequest,
} from '../remote-drain/drain-request-codec';
import { RECORD_NODE_MAX_BYTES } from './health-report-body';
import { BadRecordField, cutText, RecordFields, textOf } from './record-fields';

export function writeDrainRequest(w: MsgpackWriter, request: DrainRequest): void {
  const detail = request.detail === undefined ? undefined : cutText(request.detail, MAX_DRAIN_DETAIL_BYTES);
  w.arrayHeader(detail === undefined ? 6 : 7)
    .text(request.target)
    .text(request.requestedBy)
    .uint(request.seq)
    .uint(request.at)
    .uint(DRAIN_ACTION_CODES.indexOf(request.action))
    .uint(DRAIN_OUTCOME_CODES.indexOf(request.outcome));
  if (detail !== undefined) w.text(detail);
}

export function readDrainRequest(value: MsgValue): DrainRequest {
  const f = RecordFields.of(value, 'drain request', 6);
  const target = f.text(RECORD_NODE_MAX_BYTES);
  const requestedBy = f.text(RECORD_NODE_MAX_BYTES);
  const seq = f.count();
  const at = f.count();
  // status turns `at` into an ISO string, which throws beyond the latest time a Date holds.
  if (at > MAX_DRAIN_TIME_MS) throw new BadRecordField(`drain request: time ${at} beyond ${MAX_DRAIN_TIME_MS}`);
  const action = DRAIN_ACTION_CODES[f.count()];
  const outcome = DRAIN_OUTCOME_CODES[f.count()];
  if (action === undefined || outcome === undefined) throw new BadRecordField('drain request: unknown action or outcome');
  const raw = f.optional();
  const detail = raw === undefined || raw === null ? '' : textOf(raw, 'drain request detail', MAX_DRAIN_DETAIL_BYTES, true);
  return { target, action, requestedBy, seq, at, outcome, ...(detail === '' ? {} : { detail }) };
}
