/**
 * What one BGP session is configured with (the BGPPeer fields that reach the wire) and the timing constants of
 * the session, each with its source. Pure: types, constants and the configuration check the FSM relies on.
 */
import { parseIPv4 } from '../../../ip';
import { BgpSessionError } from './session-errors';

/** RFC 4271 section 8 / IANA: the BGP port (BGPPeer.peerPort default). */
export const BGP_PORT = 179;
/** RFC 4271 4.2: a hold time is 0 or at least 3 seconds. */
export const MIN_HOLD_TIME_S = 3;
/** The OPEN's Hold Time field is 2 octets. */
const MAX_HOLD_TIME_S = 65_535;
/** RFC 4271 4.4 and MetalLB: the keepalive interval is a third of the hold time. */
export const KEEPALIVE_HOLD_RATIO = 3;
/** RFC 4271 8.2.2 (OpenSent): the hold timer is set to "a large value", 4 minutes suggested, until OPEN arrives. */
export const OPEN_SENT_HOLD_TIME_S = 240;
/** MetalLB's native speaker dials with a 10 s timeout. */
export const DIAL_TIMEOUT_MS = 10_000;
/** MetalLB's native speaker waits 1 s after a failed or lost session, doubling each time up to 2 minutes. */
export const CONNECT_RETRY_INITIAL_MS = 1_000;
export const CONNECT_RETRY_MAX_MS = 120_000;
/** RFC 4724: the restart time field is 12 bits. */
const MAX_GRACEFUL_RESTART_TIME_S = 4_095;
/** The largest 4-octet ASN (RFC 6793); 0 is reserved (RFC 7607). */
const MAX_ASN = 0xffff_ffff;

export type FamilyName = 'ipv4' | 'ipv6';
const FAMILY_NAMES: readonly FamilyName[] = ['ipv4', 'ipv6'];

/** BGPPeer.dynamicASN: accept any peer ASN of this kind instead of one fixed peerASN. */
export type DynamicAsn = 'internal' | 'external';

/** BGPPeer.peerASN or BGPPeer.dynamicASN: exactly one. */
export type PeerAsn =
  { readonly asn: number; readonly dynamicAsn?: undefined } | { readonly asn?: undefined; readonly dynamicAsn: DynamicAsn };

export interface GracefulRestartConfig {
  /** RFC 4724 Restart Time: how long the peer keeps our routes after the session drops (0..4095 s). */
  readonly restartTimeS: number;
  /** The R bit: we are coming back from a restart (set by a daemon that restarted within the restart time). */
  readonly restarting?: boolean;
  /**
   * The F bit per family: forwarding survived the restart. True for mlb: the service IPs stay on the node while
   * the daemon restarts, so the routes the peer kept still lead somewhere that answers.
   */
  readonly forwardingPreserved?: boolean;
}

export interface LocalSpeaker {
  /** BGPPeer.myASN. */
  readonly asn: number;
  /** BGPPeer.routerID, dotted quad (MetalLB's default: the session's local IPv4 address). */
  readonly routerId: string;
  /** BGPPeer.holdTime in seconds: 0 or >= 3 (the model's BGP_PEER_LIMITS.holdTimeDefaultMs when unset). */
  readonly holdTimeS: number;
  /** BGPPeer.keepaliveTime in seconds; 0 = derive it (hold / 3). A value above hold / 3 is lowered to it. */
  readonly keepaliveS: number;
  /** The families offered (multiprotocol capability); MetalLB's native speaker offers IPv4 only. */
  readonly families: readonly FamilyName[];
  /** BGPPeer.enableGracefulRestart: advertise RFC 4724 graceful restart. */
  readonly gracefulRestart?: GracefulRestartConfig;
  /**
   * Refuse peers without the 4-octet ASN capability (RFC 6793), as MetalLB's native speaker does (default true):
   * mlb's AS_PATHs are 4-octet only then, and ASNs above 65535 work everywhere.
   */
  readonly requireFourOctetAsn?: boolean;
}

/** What the pure state machine needs; the shell adds addresses, ports and the password. */
export interface SessionFsmConfig {
  readonly local: LocalSpeaker;
  readonly peerAsn: PeerAsn;
  /** Accept the peer's own connections (the caller's listener); both directions collide per RFC 4271 6.8. */
  readonly passive: boolean;
  /** Dial the peer (default true). false with passive: wait for the peer only (RFC 4271 PassiveTcpEstablishment). */
  readonly dialOut: boolean;
  /** Reconnect backoff bounds; tests shorten them. */
  readonly connectRetryInitialMs?: number;
  readonly connectRetryMaxMs?: number;
  readonly dialTimeoutMs?: number;
}

function invalid(message: string): never {
  throw new BgpSessionError('invalidConfig', message);
}

function checkAsn(asn: number, what: string): void {
  if (!Number.isInteger(asn) || asn < 1 || asn > MAX_ASN) invalid(`${what} ${asn} is not an ASN (1 to ${MAX_ASN})`);
}

/** Throws BgpSessionError('invalidConfig') for a configuration no session could run with (MetalLB's wording where it has one). */
export function validateFsmConfig(config: SessionFsmConfig): void {
  const { local, peerAsn } = config;
  if (local.asn === undefined) invalid('missing local ASN');
  checkAsn(local.asn, 'local ASN');
  if (peerAsn.asn === undefined && peerAsn.dynamicAsn === undefined) invalid('missing peer ASN and dynamicASN');
  if (peerAsn.asn !== undefined) checkAsn(peerAsn.asn, 'peer ASN');
  else if (peerAsn.dynamicAsn !== 'internal' && peerAsn.dynamicAsn !== 'external') {
    invalid(`dynamicASN must be internal or external, not "${String(peerAsn.dynamicAsn)}"`);
  }
  if (routerIdValue(local.routerId) === undefined) invalid(`router ID "${local.routerId}" must be a non-zero dotted-quad IPv4 address`);
  const hold = local.holdTimeS;
  if (!Number.isInteger(hold) || hold < 0 || (hold > 0 && hold < MIN_HOLD_TIME_S) || hold > MAX_HOLD_TIME_S) {
    invalid(`invalid hold time "${hold}s": must be 0 or >=3s`);
  }
  if (!Number.isInteger(local.keepaliveS) || local.keepaliveS < 0 || (hold > 0 && local.keepaliveS > hold)) {
    invalid(`invalid keepalive time "${local.keepaliveS}s": must be 0 (derived) or at most the hold time`);
  }
  if (local.families.length === 0) invalid('a session needs at least one address family');
  for (const family of local.families) if (!FAMILY_NAMES.includes(family)) invalid(`unknown address family "${family}"`);
  const gr = local.gracefulRestart;
  if (gr && (!Number.isInteger(gr.restartTimeS) || gr.restartTimeS < 0 || gr.restartTimeS > MAX_GRACEFUL_RESTART_TIME_S)) {
    invalid(`graceful restart time ${gr.restartTimeS}s is outside 0..${MAX_GRACEFUL_RESTART_TIME_S}`);
  }
  if (!config.passive && !config.dialOut) invalid('a session that neither dials nor accepts connections never comes up');
}

/** The BGP identifier as an unsigned 32-bit number (RFC 6286 compares them so), or undefined if not a non-zero dotted quad. */
export function routerIdValue(text: string): number | undefined {
  const ip = parseIPv4(text);
  if (ip === undefined || ip.value === 0n) return undefined;
  return Number(ip.value);
}

/** RFC 4271 4.2 and MetalLB: the peer is internal when both ASNs are equal. */
export function isInternalPeer(localAsn: number, peerAsn: number): boolean {
  return localAsn === peerAsn;
}
