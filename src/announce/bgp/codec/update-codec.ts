/**
 * The UPDATE message (RFC 4271 4.3) with RFC 4271 6.3 checks as revised by RFC 7606.
 *
 *   +-----------------------------------------------------+
 *   |   Withdrawn Routes Length (2 octets)                |
 *   +-----------------------------------------------------+
 *   |   Withdrawn Routes (variable)                       |
 *   +-----------------------------------------------------+
 *   |   Total Path Attribute Length (2 octets)            |
 *   +-----------------------------------------------------+
 *   |   Path Attributes (variable)                        |
 *   +-----------------------------------------------------+
 *   |   Network Layer Reachability Information (variable) |
 *   +-----------------------------------------------------+
 *
 * The two length fields are checked against the message before anything is read (RFC 7606 3 item a: too large
 * -> Malformed Attribute List). Withdrawn Routes and NLRI must parse completely (RFC 7606 5.3 and 3 item j:
 * otherwise Invalid Network Field, session reset), since treat-as-withdraw needs every prefix located.
 */
import { MessageType, type BgpUpdate } from '../bgp-messages';
import { ByteWriter, readUint } from './byte-writer';
import { invalidNetworkField, malformedAttributeList, type BgpDecodeError, type CodecOptions } from './codec-errors';
import { AttributeType } from './attribute-types';
import { finishMessage, writeHeader } from './message-header';
import { decodePathAttributes } from './path-attributes-decoder';
import { encodePathAttributes } from './path-attributes-encoder';
import { decodePrefixes, encodePrefix } from './prefix-codec';

export type UpdateDecoded =
  | { readonly ok: true; readonly message: BgpUpdate; readonly treatAsWithdraw?: { readonly reason: string } }
  | { readonly ok: false; readonly error: BgpDecodeError };

/** Decodes the body of an UPDATE (the octets after the header; at least 4, checked by the header). */
export function decodeUpdateBody(body: Uint8Array, options: CodecOptions): UpdateDecoded {
  const withdrawnLength = readUint(body, 0, 2);
  const attributesAt = 2 + withdrawnLength + 2;
  if (attributesAt > body.length)
    return { ok: false, error: malformedAttributeList(`Withdrawn Routes Length ${withdrawnLength} exceeds the message`) };
  const attributesLength = readUint(body, attributesAt - 2, 2);
  const nlriAt = attributesAt + attributesLength;
  if (nlriAt > body.length)
    return { ok: false, error: malformedAttributeList(`Total Path Attribute Length ${attributesLength} exceeds the message`) };

  const attributes = decodePathAttributes(body.subarray(attributesAt, nlriAt), options);
  if (!attributes.ok) return attributes;
  const withdrawn = decodePrefixes(body.subarray(2, 2 + withdrawnLength), 4);
  if (!withdrawn.ok) return { ok: false, error: invalidNetworkField(`Withdrawn Routes: ${withdrawn.reason}`) };
  const nlri = decodePrefixes(body.subarray(nlriAt), 4);
  if (!nlri.ok) return { ok: false, error: invalidNetworkField(`NLRI: ${nlri.reason}`) };

  const reason =
    attributes.treatAsWithdraw ??
    missingWellKnown(attributes.present, nlri.prefixes.length > 0, (attributes.attributes.mpReach?.nlri.length ?? 0) > 0);
  const treatAsWithdraw = reason === undefined ? undefined : { reason };
  const message: BgpUpdate = {
    type: 'update',
    withdrawn: withdrawn.prefixes,
    attributes: attributes.attributes,
    nlri: nlri.prefixes,
    ...(treatAsWithdraw ? { treatAsWithdraw } : {}),
    ...(attributes.discarded.length > 0 ? { discardedAttributes: attributes.discarded } : {}),
  };
  return treatAsWithdraw ? { ok: true, message, treatAsWithdraw } : { ok: true, message };
}

/**
 * RFC 7606 3 item d: a missing well-known mandatory attribute -> treat-as-withdraw. ORIGIN and AS_PATH go with any
 * reachable prefix; NEXT_HOP only with IPv4 NLRI in the UPDATE's own field (RFC 4760 3 makes it discretionary
 * otherwise). An UPDATE that only withdraws needs none.
 */
function missingWellKnown(present: ReadonlySet<number>, hasNlri: boolean, hasMpNlri: boolean): string | undefined {
  if (!hasNlri && !hasMpNlri) return undefined;
  const required: [number, string][] = [
    [AttributeType.origin, 'ORIGIN'],
    [AttributeType.asPath, 'AS_PATH'],
  ];
  if (hasNlri) required.push([AttributeType.nextHop, 'NEXT_HOP']);
  const missing = required.filter(([type]) => !present.has(type)).map(([, name]) => name);
  return missing.length === 0 ? undefined : `missing well-known attribute ${missing.join(', ')}`;
}

export function encodeUpdate(message: BgpUpdate, options: CodecOptions): Uint8Array {
  const writer = new ByteWriter();
  writeHeader(writer, MessageType.update);
  const withdrawnLengthAt = writer.length;
  writer.u16(0);
  for (const prefix of message.withdrawn) encodePrefix(writer, prefix, 4);
  writer.patchU16(withdrawnLengthAt, writer.length - withdrawnLengthAt - 2);
  const attributes = encodePathAttributes(message.attributes, options);
  // A length over 65535 would wrap here, but finishMessage refuses anything over 4096 octets first.
  writer.u16(attributes.length).bytes(attributes);
  for (const prefix of message.nlri) encodePrefix(writer, prefix, 4);
  return finishMessage(writer);
}
