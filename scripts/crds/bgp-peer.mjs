// BGPPeer in its two served versions. v1beta2 is the storage version (as in MetalLB since v0.13). The versions
// share every v1beta1 field name and shape, so the API server converts between them by relabelling alone
// (conversion strategy None): no conversion webhook to run. v1beta1 keeps its stricter old rules (peerASN and
// peerAddress required, node selector expressions with values) so that what it accepted before still reads back.
import { asn, boolean, column, crd, emptyObject, integer, object, root, selectorList, string, stringList } from './schema-parts.mjs';

const COLUMNS = [
  column('Address', '.spec.peerAddress'),
  column('ASN', '.spec.peerASN'),
  column('BFD Profile', '.spec.bfdProfile'),
  column('Multi Hops', '.spec.ebgpMultiHop'),
];

/** The fields v1beta1 has, described once for both versions. */
function commonFields() {
  return {
    bfdProfile: string('BFDProfile name; the session runs BFD with it. No BFD when unset.'),
    ebgpMultiHop: boolean('The peer is more than one hop away (eBGP multi-hop).'),
    holdTime: string('Proposed hold time (RFC 4271), a duration such as 90s.'),
    keepaliveTime: string('Interval between KEEPALIVE messages (RFC 4271), a duration such as 30s.'),
    myASN: asn('Local AS number.'),
    password: string('TCP MD5 signature key (RFC 2385) for the session, in clear; prefer passwordSecret.'),
    peerASN: asn("The peer's AS number."),
    peerAddress: string('IP address the session is opened to.'),
    routerID: string('BGP identifier sent to the peer (an IPv4 address); the node address when unset.'),
    sourceAddress: string('Local address the session is opened from.'),
  };
}

/** v1beta1's node selector: its own type in MetalLB's v1beta1 API, every expression with at least one value. */
function legacyNodeSelectors() {
  return {
    description: 'Open the session only on nodes matching one of these selectors; on every node when empty.',
    items: {
      description: 'A node selector.',
      properties: {
        matchExpressions: {
          description: 'Requirements on node labels, all of which must hold.',
          items: object(
            'One requirement.',
            {
              key: string('The label key.'),
              operator: string('In, NotIn, Exists or DoesNotExist.'),
              values: stringList('The values the operator compares with.', { minItems: 1 }),
            },
            ['key', 'operator', 'values'],
          ),
          type: 'array',
        },
        matchLabels: {
          additionalProperties: { type: 'string' },
          description: 'Labels the node must carry with these values.',
          type: 'object',
        },
      },
      type: 'object',
    },
    type: 'array',
  };
}

function v1beta1() {
  const spec = object(
    'A BGP session every selected node opens.',
    {
      ...commonFields(),
      nodeSelectors: legacyNodeSelectors(),
      peerPort: integer('TCP port of the peer.', { minimum: 0, maximum: 16384 }),
    },
    ['myASN', 'peerASN', 'peerAddress'],
  );
  return {
    name: 'v1beta1',
    storage: false,
    deprecationWarning: 'metallb.io/v1beta1 BGPPeer is deprecated; use metallb.io/v1beta2',
    columns: COLUMNS,
    schema: root('A BGP router the nodes peer with.', { spec, status: emptyObject('Nothing yet: the kind has no observed state.') }),
  };
}

function v1beta2() {
  const spec = object(
    'A BGP session every selected node opens.',
    {
      ...commonFields(),
      connectTime: string('Wait between connection attempts, whole seconds from 1 to 65535 (e.g. 10s).', {
        'x-kubernetes-validations': [
          {
            message: 'connectTime must be from 1s to 65535s',
            rule: 'duration(self).getSeconds() >= 1 && duration(self).getSeconds() <= 65535',
          },
          { message: 'connectTime must be a whole number of seconds', rule: 'duration(self).getMilliseconds() % 1000 == 0' },
        ],
      }),
      disableMP: boolean('Deprecated: one session per address family instead of multiprotocol BGP.', false),
      dualStackAddressFamily: boolean('Exchange both IPv4 and IPv6 prefixes over this one session.', false),
      dynamicASN: string('Accept the peer AS without naming it: internal (same as myASN) or external (any other).', {
        enum: ['internal', 'external'],
      }),
      enableGracefulRestart: boolean('Graceful restart (RFC 4724); fixed at creation (FRR modes of MetalLB only).'),
      interface: string('Node interface for an unnumbered session; instead of peerAddress.'),
      localASN: asn('AS number presented to this peer instead of myASN (local-as; not in native mode).', 1),
      nodeSelectors: selectorList(
        'Open the session only on nodes matching one of these selectors; on every node when empty.',
        'A node selector.',
      ),
      passwordSecret: object(
        'Secret (type kubernetes.io/basic-auth, key password) holding the TCP MD5 key, in the MetalLB namespace.',
        {
          name: string('Secret name.'),
          namespace: string('Secret namespace.'),
        },
        undefined,
        { 'x-kubernetes-map-type': 'atomic' },
      ),
      peerPort: integer('TCP port of the peer.', { minimum: 1, maximum: 16384, defaultValue: 179 }),
      vrf: string('Host VRF the session is opened in.'),
    },
    ['myASN'],
  );
  // Set once: changing it would need the session torn down, which MetalLB's API forbids by rule.
  spec.properties.enableGracefulRestart['x-kubernetes-validations'] = [
    { message: 'enableGracefulRestart is fixed once the peer is created', rule: 'self == oldSelf' },
  ];
  return {
    name: 'v1beta2',
    storage: true,
    columns: COLUMNS,
    schema: root('A BGP router the nodes peer with.', { spec, status: emptyObject('Nothing yet: the kind has no observed state.') }),
  };
}

export function bgpPeer() {
  const definition = crd({ kind: 'BGPPeer', plural: 'bgppeers', versions: [v1beta1(), v1beta2()] });
  definition.spec.conversion = { strategy: 'None' };
  return definition;
}
