/**
 * The kinds mlb reads and the apiVersions it reads each in. Its own file so the document reader (objects.ts) and
 * the parsed-objects checks (parsed-objects.ts) share it without importing each other.
 */

const METALLB_V1BETA1 = 'metallb.io/v1beta1';
const METALLB_V1BETA2 = 'metallb.io/v1beta2';
const CORE_V1 = 'v1';

/** The API versions each kind is read in; the first is the current one (named in messages). */
export const KIND_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  IPAddressPool: [METALLB_V1BETA1],
  L2Advertisement: [METALLB_V1BETA1],
  BGPAdvertisement: [METALLB_V1BETA1],
  BGPPeer: [METALLB_V1BETA2, METALLB_V1BETA1],
  BFDProfile: [METALLB_V1BETA1],
  Community: [METALLB_V1BETA1],
  Service: [CORE_V1],
  Node: [CORE_V1],
  List: [CORE_V1],
};
