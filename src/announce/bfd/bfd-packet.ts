/**
 * The BFD Control packet (RFC 5880 section 4.1), pure: encode a packet, decode bytes with the stateless checks of
 * section 6.8.6 (the ones that need no session: version, lengths, detect mult, M bit, discriminators). The
 * session-dependent checks (auth in use, which session) are the reducer's and the endpoint's.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |Vers |  Diag   |Sta|P|F|C|A|D|M|  Detect Mult  |    Length     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                       My Discriminator                        |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                      Your Discriminator                       |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                    Desired Min TX Interval                    |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                   Required Min RX Interval                    |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                 Required Min Echo RX Interval                 |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Auth Type   |   Auth Len    |    Authentication Data...     |   (only with the A bit, section 4.2)
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Intervals are in microseconds. The Length field is distrusted: it must fit the datagram, and octets after it
 * are ignored. The authentication section is parsed (type, length, opaque data) and never verified: BFDProfile
 * configures no authentication, so a session refuses any packet that carries one (6.8.6).
 */
import { BfdError } from './bfd-error';
import { bfdDropped, type BfdDecoded } from './bfd-drop-reasons';

/** The only version (RFC 5880 section 4.1). */
const BFD_VERSION = 1;
/** The mandatory section's length; Length may not be smaller (6.8.6). */
const BFD_MANDATORY_BYTES = 24;
/** Auth Type and Auth Len: the smallest authentication section, so the least Length with the A bit (6.8.6). */
const BFD_AUTH_HEADER_BYTES = 2;
/** Length is one octet. */
const BFD_MAX_PACKET_BYTES = 255;
/** Detect Mult is one octet; zero is refused (6.8.6). */
const BFD_MAX_DETECT_MULT = 255;
const BFD_MAX_DIAG = 31;
export const UINT32_MAX = 0xffff_ffff;

/** Session states (RFC 5880 section 4.1, Sta), index = the wire value. */
export const BFD_STATES = ['AdminDown', 'Down', 'Init', 'Up'] as const;
export type BfdState = (typeof BFD_STATES)[number];

/** Diagnostic codes (RFC 5880 section 4.1; IANA "BFD Diagnostic Codes"); append-only. 9-31 are unassigned. */
export const BfdDiag = {
  noDiagnostic: 0,
  controlDetectionTimeExpired: 1,
  echoFunctionFailed: 2,
  neighborSignaledSessionDown: 3,
  forwardingPlaneReset: 4,
  pathDown: 5,
  concatenatedPathDown: 6,
  administrativelyDown: 7,
  reverseConcatenatedPathDown: 8,
} as const;

const DIAG_NAMES: readonly string[] = Object.keys(BfdDiag);

/** "controlDetectionTimeExpired" for 1; "diag9" for an unassigned code. */
export function bfdDiagName(diag: number): string {
  return DIAG_NAMES[diag] ?? `diag${diag}`;
}

/** An authentication section as received: never verified here (see the header). */
export interface BfdAuthSection {
  readonly type: number;
  /** Everything after Auth Type and Auth Len (Auth Key ID, sequence number, key or digest). */
  readonly data: Uint8Array;
}

export interface BfdControlPacket {
  /** Diag: 0-31. */
  readonly diag: number;
  readonly state: BfdState;
  /** P: the sender asks for verification (a Poll Sequence, section 6.5). */
  readonly poll: boolean;
  /** F: the answer to a Poll. */
  readonly final: boolean;
  /** C: the sender's BFD does not share fate with its control plane. mlb's BFD runs in the daemon: always false. */
  readonly controlPlaneIndependent: boolean;
  /** D: the sender wishes to run in Demand mode. */
  readonly demand: boolean;
  /** M: reserved for point-to-multipoint; a received packet with it is dropped. */
  readonly multipoint: boolean;
  /** 1-255. */
  readonly detectMult: number;
  readonly myDiscriminator: number;
  readonly yourDiscriminator: number;
  /** Microseconds. */
  readonly desiredMinTxUs: number;
  /** Microseconds; 0: the sender wants no periodic Control packets. */
  readonly requiredMinRxUs: number;
  /** Microseconds; 0: the sender does not support Echo (mlb always sends 0). */
  readonly requiredMinEchoRxUs: number;
  /** Present exactly when the A bit is set. */
  readonly auth?: BfdAuthSection;
}

const FLAG_POLL = 0x20;
const FLAG_FINAL = 0x10;
const FLAG_CPI = 0x08;
const FLAG_AUTH = 0x04;
const FLAG_DEMAND = 0x02;
const FLAG_MULTIPOINT = 0x01;

function checkUint(name: string, value: number, max: number, min = 0): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BfdError('invalidField', `BFD ${name} must be an integer in ${min}..${max}, not ${String(value)}`);
  }
}

/** The packet's bytes. Throws BfdError('invalidField') for a field outside its wire range or P and F together. */
export function encodeBfdControl(p: BfdControlPacket): Uint8Array {
  checkUint('diag', p.diag, BFD_MAX_DIAG);
  checkUint('detect mult', p.detectMult, BFD_MAX_DETECT_MULT);
  for (const [name, value] of [
    ['my discriminator', p.myDiscriminator],
    ['your discriminator', p.yourDiscriminator],
    ['desired min TX', p.desiredMinTxUs],
    ['required min RX', p.requiredMinRxUs],
    ['required min echo RX', p.requiredMinEchoRxUs],
  ] as const) {
    checkUint(name, value, UINT32_MAX);
  }
  const stateCode = BFD_STATES.indexOf(p.state);
  if (stateCode < 0) throw new BfdError('invalidField', `unknown BFD state "${String(p.state)}"`);
  // Section 6.5: a BFD Control packet MUST NOT have both the Poll and Final bits set.
  if (p.poll && p.final) throw new BfdError('invalidField', 'a BFD Control packet cannot carry both Poll and Final');
  const authBytes = p.auth ? BFD_AUTH_HEADER_BYTES + p.auth.data.length : 0;
  if (p.auth) checkUint('auth type', p.auth.type, 255);
  const length = BFD_MANDATORY_BYTES + authBytes;
  if (length > BFD_MAX_PACKET_BYTES) throw new BfdError('invalidField', `a BFD Control packet of ${length} octets does not fit Length`);

  const bytes = new Uint8Array(length);
  const view = new DataView(bytes.buffer);
  bytes[0] = (BFD_VERSION << 5) | p.diag;
  bytes[1] =
    (stateCode << 6) |
    (p.poll ? FLAG_POLL : 0) |
    (p.final ? FLAG_FINAL : 0) |
    (p.controlPlaneIndependent ? FLAG_CPI : 0) |
    (p.auth ? FLAG_AUTH : 0) |
    (p.demand ? FLAG_DEMAND : 0) |
    (p.multipoint ? FLAG_MULTIPOINT : 0);
  bytes[2] = p.detectMult;
  bytes[3] = length;
  view.setUint32(4, p.myDiscriminator);
  view.setUint32(8, p.yourDiscriminator);
  view.setUint32(12, p.desiredMinTxUs);
  view.setUint32(16, p.requiredMinRxUs);
  view.setUint32(20, p.requiredMinEchoRxUs);
  if (p.auth) {
    bytes[24] = p.auth.type;
    bytes[25] = authBytes;
    bytes.set(p.auth.data, 26);
  }
  return bytes;
}

/**
 * One UDP payload -> a Control packet, or the first 6.8.6 rule it breaks. Never throws. The checks run in the
 * RFC's order, so a packet that breaks several rules is dropped for the first one.
 */
export function decodeBfdControl(bytes: Uint8Array): BfdDecoded<BfdControlPacket> {
  if (bytes.length < BFD_MANDATORY_BYTES) return bfdDropped('truncated', `${bytes.length} octets`);
  const version = bytes[0]! >> 5;
  if (version !== BFD_VERSION) return bfdDropped('badVersion', `version ${version}`);
  const flags = bytes[1]!;
  const hasAuth = (flags & FLAG_AUTH) !== 0;
  const length = bytes[3]!;
  const least = hasAuth ? BFD_MANDATORY_BYTES + BFD_AUTH_HEADER_BYTES : BFD_MANDATORY_BYTES;
  if (length < least) return bfdDropped('badLength', `Length ${length} is below ${least}`);
  if (length > bytes.length) return bfdDropped('badLength', `Length ${length} exceeds the ${bytes.length}-octet payload`);
  const detectMult = bytes[2]!;
  if (detectMult === 0) return bfdDropped('zeroDetectMult');
  if ((flags & FLAG_MULTIPOINT) !== 0) return bfdDropped('multipoint');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const myDiscriminator = view.getUint32(4);
  if (myDiscriminator === 0) return bfdDropped('zeroMyDiscriminator');
  const yourDiscriminator = view.getUint32(8);
  const state = BFD_STATES[flags >> 6]!;
  if (yourDiscriminator === 0 && state !== 'Down' && state !== 'AdminDown') {
    return bfdDropped('zeroYourDiscriminator', `state ${state}`);
  }
  let auth: BfdAuthSection | undefined;
  if (hasAuth) {
    const authLength = bytes[25]!;
    if (authLength < BFD_AUTH_HEADER_BYTES || BFD_MANDATORY_BYTES + authLength !== length) {
      return bfdDropped('badAuthLength', `Auth Len ${authLength} with Length ${length}`);
    }
    auth = { type: bytes[24]!, data: bytes.slice(26, length) };
  }
  const packet: BfdControlPacket = {
    diag: bytes[0]! & 0x1f,
    state,
    poll: (flags & FLAG_POLL) !== 0,
    final: (flags & FLAG_FINAL) !== 0,
    controlPlaneIndependent: (flags & FLAG_CPI) !== 0,
    demand: (flags & FLAG_DEMAND) !== 0,
    multipoint: false,
    detectMult,
    myDiscriminator,
    yourDiscriminator,
    desiredMinTxUs: view.getUint32(12),
    requiredMinRxUs: view.getUint32(16),
    requiredMinEchoRxUs: view.getUint32(20),
  };
  return { ok: true, value: auth ? { ...packet, auth } : packet };
}
