/**
 * BGPPeer (metallb.io/v1beta2, api/v1beta2/bgppeer_types.go; v1beta1 read too, with its smaller field set and
 * 2-byte ASN bound). Rules and wording from internal/config/config.go peerFromCR and parseTimers.
 */
import { formatIP, parseIP, type IP } from '../../ip';
import type { BGPPeer, DynamicASN, ObjectMeta } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { MapReader } from './field-reader';
import { readSelectorList } from './selectors';

const MS_PER_SECOND = 1000;

/** Limits and defaults with their sources. */
const BGP_PEER_LIMITS = {
  /** 4-byte ASNs (RFC 6793); 0 means "not set". v1beta2 CRD Maximum=4294967295. */
  asnMax: 4294967295,
  /** The v1beta1 CRD kept 2-byte ASNs (Maximum=65535). */
  asnMaxV1beta1: 65535,
  /** The CRD's peerPort bounds (Minimum=1, Maximum=16384) and default. */
  portMin: 1,
  portMax: 16384,
  portDefault: 179,
  /** MetalLB's native speaker default hold time (RFC 4271 suggests 90 s). */
  holdTimeDefaultMs: 90 * MS_PER_SECOND,
  /** RFC 4271 section 4.2: a non-zero hold time is at least 3 s. */
  holdTimeMinMs: 3 * MS_PER_SECOND,
  /** keepalive = hold / 3 when only one is given (config.go parseTimers). */
  keepaliveDivisor: 3,
  /** The CRD's CEL rule: "connect time should be between 1 seconds to 65535". */
  connectTimeMinMs: 1 * MS_PER_SECOND,
  connectTimeMaxMs: 65535 * MS_PER_SECOND,
} as const;

const DYNAMIC_ASN_MODES: readonly DynamicASN[] = ['internal', 'external'];

/** Fields v1beta2 added; named in the unknown-field message of a v1beta1 object. */
const V1BETA2_ONLY_FIELDS = [
  'dynamicASN',
  'interface',
  'connectTime',
  'passwordSecret',
  'enableGracefulRestart',
  'vrf',
  'disableMP',
  'dualStackAddressFamily',
  'localASN',
];

export function readBGPPeer(top: MapReader, meta: ObjectMeta, apiVersion: string): BGPPeer | undefined {
  const spec = top.map('spec', { required: true });
  if (!spec) return undefined;
  const v1beta1 = apiVersion === 'metallb.io/v1beta1';
  const L = BGP_PEER_LIMITS;
  const asnMax = v1beta1 ? L.asnMaxV1beta1 : L.asnMax;
  const peerRef = `"${meta.namespace}"/"${meta.name}"`;

  const myASN = readASN(spec, 'myASN', asnMax);
  if (myASN === 0 || (myASN === undefined && !spec.has('myASN'))) {
    // MetalLB's words, then the field to set: "local" is the BGP term, myASN what the file calls it.
    spec.error(
      DiagnosticCode.missingLocalASN,
      spec.has('myASN')
        ? "missing local ASN: spec.myASN is 0, which means not set; give this cluster's AS number"
        : "missing local ASN: set spec.myASN to this cluster's AS number",
      spec.has('myASN') ? 'myASN' : undefined,
    );
  }
  const peerASN = readASN(spec, 'peerASN', asnMax);
  const dynamicASN = v1beta1 ? undefined : readDynamicASN(spec);
  const dynamicWritten = !v1beta1 && spec.has('dynamicASN');
  // 0 is "not set" for MetalLB; an out-of-range or mistyped value has had its own error already.
  if ((peerASN === 0 || !spec.has('peerASN')) && !dynamicWritten) {
    spec.error(DiagnosticCode.missingPeerASN, 'missing peer ASN and dynamicASN', spec.has('peerASN') ? 'peerASN' : undefined);
  }
  if (peerASN && dynamicASN !== undefined) {
    spec.error(DiagnosticCode.peerASNConflict, 'both peer ASN and dynamicASN specified', 'dynamicASN');
  }

  const addressText = spec.string('peerAddress');
  const iface = v1beta1 ? undefined : spec.string('interface');
  const peerAddress = readIP(spec, 'peerAddress', addressText, `invalid BGPPeer address "${addressText}"`);
  if (addressText === undefined && iface === undefined) {
    spec.error(DiagnosticCode.missingPeerAddress, 'peer has no Address or Interface specified');
  } else if (addressText !== undefined && iface !== undefined) {
    spec.error(DiagnosticCode.peerAddressConflict, 'peer has both Address and Interface specified', 'interface');
  }
  if (iface !== undefined) rejectLineBreaks(spec, 'interface', iface, `interface for peer ${peerRef}`);

  const sourceText = spec.string('sourceAddress');
  const sourceAddress = readIP(spec, 'sourceAddress', sourceText, `invalid source IP "${sourceText}"`);
  const routerText = spec.string('routerID');
  let routerID = readIP(spec, 'routerID', routerText, `invalid router ID "${routerText}"`);
  if (routerID && routerID.family !== 4) {
    // A BGP identifier is 4 bytes (RFC 6286); MetalLB accepts IPv6 text here and its speakers then fail.
    spec.error(DiagnosticCode.invalidIP, `invalid router ID "${routerText}": must be an IPv4 address`, 'routerID');
    routerID = undefined;
  }
  const peerPort = v1beta1
    ? spec.integerInRange('peerPort', 0, L.portMax) || L.portDefault
    : (spec.integerInRange('peerPort', L.portMin, L.portMax) ?? L.portDefault);

  const timers = readTimers(spec);
  const connectTimeMs = v1beta1 ? undefined : readConnectTime(spec);

  const password = spec.string('password');
  if (password !== undefined) rejectLineBreaks(spec, 'password', password, `password for peer ${peerRef}`);
  const secret = v1beta1 ? undefined : spec.map('passwordSecret');
  const secretName = secret?.string('name');
  const secretNamespace = secret?.string('namespace');
  if (password && secretName) {
    spec.error(
      DiagnosticCode.passwordConflict,
      `can not have both password and secret ref set in peer config ${peerRef}`,
      'passwordSecret',
    );
  }
  // The Secret itself is looked up after reading (peer-secrets.ts): only the caller knows which Secrets exist.

  const ebgpMultiHop = spec.boolean('ebgpMultiHop') ?? false;
  const internal = dynamicASN === 'internal' || (peerASN !== undefined && peerASN === myASN);
  if (ebgpMultiHop && internal) {
    spec.error(DiagnosticCode.ebgpMultiHopForIBGP, 'invalid ebgp-multihop parameter set for an ibgp peer', 'ebgpMultiHop');
  }
  const vrf = v1beta1 ? undefined : spec.string('vrf');
  if (vrf !== undefined) rejectLineBreaks(spec, 'vrf', vrf, `VRF name for peer ${peerRef}`);
  const localASN = v1beta1 ? undefined : readASN(spec, 'localASN', asnMax);
  const bfdProfile = spec.string('bfdProfile');
  const nodeSelectors = readSelectorList(spec, 'nodeSelectors');
  const enableGracefulRestart = v1beta1 ? false : (spec.boolean('enableGracefulRestart') ?? false);
  const disableMP = v1beta1 ? false : (spec.boolean('disableMP') ?? false);
  const dualStackAddressFamily = v1beta1 ? false : (spec.boolean('dualStackAddressFamily') ?? false);
  refuseFRROnlyFields(spec, addressText ?? meta.name, { vrf, localASN, iface: addressText === undefined ? iface : undefined });
  if (v1beta1) {
    spec.hints = Object.fromEntries(V1BETA2_ONLY_FIELDS.map((f) => [f, 'only in metallb.io/v1beta2']));
  }

  // Returned even when invalid (the parse fails anyway), so references to it do not add "not found" noise.
  return {
    kind: 'BGPPeer',
    meta,
    myASN: myASN ?? 0,
    ...(peerASN ? { peerASN } : {}),
    ...(dynamicASN !== undefined && !peerASN ? { dynamicASN } : {}),
    ...(peerAddress && { peerAddress }),
    ...(iface !== undefined && addressText === undefined && { interface: iface }),
    ...(sourceAddress && { sourceAddress }),
    peerPort,
    holdTimeMs: timers.holdTimeMs,
    keepaliveTimeMs: timers.keepaliveTimeMs,
    ...(connectTimeMs !== undefined && { connectTimeMs }),
    ...(routerID && { routerID }),
    nodeSelectors,
    ...(password ? { password } : {}),
    ...(secretName ? { passwordSecret: { name: secretName, namespace: secretNamespace ?? meta.namespace } } : {}),
    ...(bfdProfile ? { bfdProfile } : {}),
    enableGracefulRestart,
    ebgpMultiHop,
    ...(vrf ? { vrf } : {}),
    ...(localASN ? { localASN } : {}),
    disableMP,
    dualStackAddressFamily,
  };
}

/**
 * validation.go DiscardFRROnly: MetalLB's native speaker refuses the FRR-only fields, in these words (it names
 * the peer by its address). mlb's speaker is native too and lacks these three: accepted, the session would come
 * up from the wrong VRF or with the wrong AS number, or never (no unnumbered peering). The other FRR-only fields
 * it refuses mlb's speaker implements (bfdProfile, keepaliveTime, dynamicASN, enableGracefulRestart,
 * dualStackAddressFamily) or can ignore without harm (connectTime, disableMP).
 */
function refuseFRROnlyFields(
  spec: MapReader,
  peer: string,
  fields: { vrf: string | undefined; localASN: number | undefined; iface: string | undefined },
): void {
  const refuse = (key: string, why: string): void => {
    spec.error(DiagnosticCode.unsupportedPeerField, `peer ${peer} has ${key} set on native bgp mode: ${why}`, key);
  };
  if (fields.vrf) refuse('vrf', "mlb's BGP speaker opens every session from the default VRF");
  if (fields.localASN) refuse('localASN', "mlb's BGP speaker always opens the session with myASN");
  if (fields.iface) refuse('interface', "mlb's BGP speaker needs a peerAddress (no unnumbered peering)");
}

/** An ASN, 0..max; 0 is returned as is (the callers word "missing ... ASN" as MetalLB does). */
function readASN(spec: MapReader, key: string, max: number): number | undefined {
  const value = spec.integer(key);
  if (value === undefined) return undefined;
  if (value < 0 || value > max) {
    spec.error(DiagnosticCode.outOfRange, `invalid ${key} ${value}: an AS number must be between 1 and ${max}`, key);
    return undefined;
  }
  return value;
}

function readDynamicASN(spec: MapReader): DynamicASN | undefined {
  const text = spec.string('dynamicASN');
  if (text === undefined || text === '') return undefined;
  if ((DYNAMIC_ASN_MODES as readonly string[]).includes(text)) return text as DynamicASN;
  spec.error(DiagnosticCode.invalidValue, `invalid dynamicASN ${text}: must be internal or external`, 'dynamicASN');
  return undefined;
}

function readIP(spec: MapReader, key: string, text: string | undefined, message: string): IP | undefined {
  if (text === undefined) return undefined;
  const ip = parseIP(text);
  if (!ip) spec.error(DiagnosticCode.invalidIP, message, key);
  return ip;
}

function rejectLineBreaks(spec: MapReader, key: string, value: string, what: string): void {
  // config.go: these end up in FRR's configuration text, where a newline would inject a command.
  if (/[\r\n]/.test(value)) spec.error(DiagnosticCode.invalidValue, `${what} contains invalid characters`, key);
}

/** config.go parseTimers: one of hold/keepalive derives the other; hold 0 or >= 3 s; keepalive <= hold. */
function readTimers(spec: MapReader): { holdTimeMs: number; keepaliveTimeMs: number } {
  const L = BGP_PEER_LIMITS;
  const hold = spec.duration('holdTime');
  const keepalive = spec.duration('keepaliveTime');
  const holdMs = hold?.ms ?? (keepalive ? keepalive.ms * L.keepaliveDivisor : L.holdTimeDefaultMs);
  const keepaliveMs = keepalive?.ms ?? holdMs / L.keepaliveDivisor;
  // MetalLB truncates to whole seconds before comparing, so "2999ms" is refused and "3500ms" accepted.
  const roundedMs = Math.trunc(holdMs / MS_PER_SECOND) * MS_PER_SECOND;
  if (roundedMs !== 0 && roundedMs < L.holdTimeMinMs) {
    const text = hold ? hold.text : `${keepalive?.text ?? ''} x ${L.keepaliveDivisor}`;
    spec.error(DiagnosticCode.invalidHoldTime, `invalid hold time "${text}": must be 0 or >=3s`, hold ? 'holdTime' : 'keepaliveTime');
  } else if (keepaliveMs > holdMs) {
    spec.error(
      DiagnosticCode.invalidKeepaliveTime,
      `invalid keepaliveTime "${keepalive?.text ?? ''}", must be lower than holdTime "${hold?.text ?? ''}"`,
      'keepaliveTime',
    );
  }
  return { holdTimeMs: holdMs, keepaliveTimeMs: keepaliveMs };
}

function readConnectTime(spec: MapReader): number | undefined {
  const L = BGP_PEER_LIMITS;
  const connect = spec.duration('connectTime');
  if (!connect) return undefined;
  if (connect.ms < L.connectTimeMinMs || connect.ms > L.connectTimeMaxMs) {
    spec.error(
      DiagnosticCode.invalidConnectTime,
      `invalid connectTime "${connect.text}": connect time should be between 1 seconds to 65535`,
      'connectTime',
    );
    return undefined;
  }
  if (connect.ms % MS_PER_SECOND !== 0) {
    spec.error(
      DiagnosticCode.invalidConnectTime,
      `invalid connectTime "${connect.text}": connect time should contain a whole number of seconds`,
      'connectTime',
    );
    return undefined;
  }
  return connect.ms;
}

/** The text used to compare peers for "already exists" and in messages. */
export function peerEndpoint(peer: BGPPeer): string {
  const target = peer.peerAddress ? formatIP(peer.peerAddress) : `interface ${peer.interface ?? ''}`;
  return `${target} port ${peer.peerPort}${peer.vrf ? ` vrf ${peer.vrf}` : ''}`;
}
