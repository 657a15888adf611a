/**
 * The OPEN mlb sends (RFC 4271 4.2) and the capability bytes an OPEN error NOTIFICATION quotes. Pure.
 *
 * Capabilities offered (RFC 5492): multiprotocol per configured family (RFC 4760), route refresh (RFC 2918),
 * 4-octet ASN (RFC 6793) always, graceful restart (RFC 4724) when configured.
 */
import { Afi, AS_TRANS, BGP_VERSION, CapabilityCode, Safi, type BgpOpen, type Capability } from '../bgp-messages';
import { ipFamilyOfAfiSafi } from '../codec/mp-nlri-codec';
import type { FamilyName, LocalSpeaker } from './session-config';

/** The largest ASN the OPEN's 2-octet My AS field holds; above it the field carries AS_TRANS (RFC 6793 4.1). */
const MAX_TWO_OCTET_ASN = 0xffff;
/** RFC 4724 3: the Restart State bit in the restart flags, and the Forwarding State bit per family. */
export const GRACEFUL_RESTART_R_BIT = 0x8;
export const GRACEFUL_RESTART_F_BIT = 0x80;

const AFI_OF: Readonly<Record<FamilyName, number>> = { ipv4: Afi.ipv4, ipv6: Afi.ipv6 };

/** The family name of a supported AFI/SAFI (unicast only), or undefined: the codec's decision, in session words. */
export function familyNameOfAfiSafi(afi: number, safi: number): FamilyName | undefined {
  const family = ipFamilyOfAfiSafi(afi, safi);
  return family === undefined ? undefined : family === 4 ? 'ipv4' : 'ipv6';
}

export function buildOpen(local: LocalSpeaker): BgpOpen {
  const capabilities: Capability[] = local.families.map((family) => ({ code: 'multiprotocol', afi: AFI_OF[family], safi: Safi.unicast }));
  capabilities.push({ code: 'routeRefresh' });
  capabilities.push({ code: 'fourOctetAsn', asn: local.asn });
  const gr = local.gracefulRestart;
  if (gr) {
    capabilities.push({
      code: 'gracefulRestart',
      restartFlags: gr.restarting ? GRACEFUL_RESTART_R_BIT : 0,
      restartTimeSeconds: gr.restartTimeS,
      families: local.families.map((family) => ({
        afi: AFI_OF[family],
        safi: Safi.unicast,
        flags: gr.forwardingPreserved === false ? 0 : GRACEFUL_RESTART_F_BIT,
      })),
    });
  }
  return {
    type: 'open',
    version: BGP_VERSION,
    myAs: local.asn > MAX_TWO_OCTET_ASN ? AS_TRANS : local.asn,
    holdTimeSeconds: local.holdTimeS,
    bgpIdentifier: local.routerId,
    capabilities,
  };
}

/** RFC 5492 capability TLV: code, length, value (for the data of a 2/7 Unsupported Capability NOTIFICATION). */
function capabilityTlv(code: number, value: readonly number[]): number[] {
  return [code, value.length, ...value];
}

function u16(value: number): number[] {
  return [(value >>> 8) & 0xff, value & 0xff];
}

function u32(value: number): number[] {
  return [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

/** The 4-octet ASN capability mlb requires, as the TLV RFC 5492 says the NOTIFICATION data lists. */
export function fourOctetAsnCapabilityBytes(localAsn: number): Uint8Array {
  return new Uint8Array(capabilityTlv(CapabilityCode.fourOctetAsn, u32(localAsn)));
}

/** The multiprotocol capabilities mlb offers, for a NOTIFICATION saying none of them is shared. */
export function multiprotocolCapabilityBytes(families: readonly FamilyName[]): Uint8Array {
  const tlv = (family: FamilyName): number[] => capabilityTlv(CapabilityCode.multiprotocol, [...u16(AFI_OF[family]), 0, Safi.unicast]);
  return new Uint8Array(families.flatMap(tlv));
}

/** RFC 4271 6.2: the data of an Unsupported Version Number error: the largest version we speak, 2 octets. */
export function supportedVersionBytes(): Uint8Array {
  return new Uint8Array(u16(BGP_VERSION));
}
