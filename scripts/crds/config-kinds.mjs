// The configuration kinds users write: IPAddressPool, L2Advertisement, BGPAdvertisement, BGPPeer (v1beta1 and
// v1beta2), BFDProfile, Community. Fields, types, bounds, defaults and printer columns as MetalLB v0.16 defines
// them (see schema-parts.mjs); descriptions say what mlb does with each field.
import {
  boolean,
  column,
  crd,
  emptyObject,
  integer,
  labelSelector,
  object,
  root,
  selectorList,
  string,
  stringList,
} from './schema-parts.mjs';

const NO_STATUS = emptyObject('Nothing yet: the kind has no observed state.');

function ipAddressPool() {
  const spec = object(
    'The addresses of the pool and who may be given them.',
    {
      addresses: stringList('Address ranges, each a CIDR (192.0.2.0/28, 2001:db8::/120) or a first-last range.'),
      autoAssign: boolean('Whether services that ask for no pool or address get addresses from this pool.', true),
      avoidBuggyIPs: boolean('Never hand out addresses ending in .0 or .255 (some old clients drop them).', false),
      serviceAllocation: object('Reserves the pool for some namespaces or services.', {
        namespaceSelectors: selectorList('Namespaces, by label, whose services may use the pool.', 'A namespace selector.'),
        namespaces: stringList('Namespaces, by name, whose services may use the pool.'),
        priority: integer('Lower is tried first among the pools a service may use; pools without it come last.'),
        serviceSelectors: selectorList('Services, by label, that may use the pool.', 'A service selector.'),
      }),
    },
    ['addresses'],
  );
  const status = object(
    'How many addresses of each family are given out and how many are left (written by the controller).',
    {
      assignedIPv4: integer('IPv4 addresses given to services.', { format: 'int64' }),
      assignedIPv6: integer('IPv6 addresses given to services.', { format: 'int64' }),
      availableIPv4: integer('IPv4 addresses still free.', { format: 'int64' }),
      availableIPv6: integer('IPv6 addresses still free (capped at the int64 maximum).', { format: 'int64' }),
    },
    ['assignedIPv4', 'assignedIPv6', 'availableIPv4', 'availableIPv6'],
  );
  return crd({
    kind: 'IPAddressPool',
    plural: 'ipaddresspools',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('Auto Assign', '.spec.autoAssign', 'boolean'),
          column('Avoid Buggy IPs', '.spec.avoidBuggyIPs', 'boolean'),
          column('Addresses', '.spec.addresses'),
        ],
        schema: root('Addresses that LoadBalancer services can be given.', { spec, status, required: ['spec'] }),
      },
    ],
  });
}

/** Fields both advertisement kinds share: which pools, nodes and services they cover. */
function advertisementScope(protocol) {
  return {
    ipAddressPoolSelectors: selectorList(
      `Pools, by label, announced by ${protocol}; with no pool named or selected, every pool is.`,
      'A pool selector.',
    ),
    ipAddressPools: stringList(`Pools, by name, announced by ${protocol}.`),
    nodeSelectors: selectorList('The nodes that may announce; every node when empty.', 'A node selector.'),
    serviceSelectors: selectorList('The services announced; every service of the pools when empty.', 'A service selector.'),
  };
}

function l2Advertisement() {
  const spec = object('Which addresses are announced with ARP (IPv4) and NDP (IPv6), from where.', {
    ...advertisementScope('ARP/NDP'),
    interfaces: stringList('Interfaces to answer on; all eligible interfaces when empty.'),
    preferredNodeSelectors: {
      description: 'Soft preferences among the eligible nodes: the highest summed weight announces.',
      items: object(
        'A weight given to the nodes a selector matches.',
        {
          preference: labelSelector('The nodes that get the weight; empty matches every node.'),
          weight: integer('Added to the score of each matching node.', { format: 'int32', minimum: 1, maximum: 100 }),
        },
        ['preference', 'weight'],
      ),
      type: 'array',
    },
  });
  return crd({
    kind: 'L2Advertisement',
    plural: 'l2advertisements',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('IPAddressPools', '.spec.ipAddressPools'),
          column('IPAddressPool Selectors', '.spec.ipAddressPoolSelectors'),
          column('Interfaces', '.spec.interfaces'),
          column('Node Selectors', '.spec.nodeSelectors', 'string', 10),
        ],
        schema: root('Announces pool addresses on the local network (layer 2).', { spec, status: NO_STATUS }),
      },
    ],
  });
}

function bgpAdvertisement() {
  const spec = object(
    'Which addresses are announced to BGP peers, with which prefix length and attributes.',
    {
      ...advertisementScope('BGP'),
      aggregationLength: integer('IPv4 prefix length announced for each address (32: the address alone).', {
        format: 'int32',
        minimum: 1,
        defaultValue: 32,
      }),
      aggregationLengthV6: integer('IPv6 prefix length announced for each address (128: the address alone).', {
        format: 'int32',
        defaultValue: 128,
      }),
      communities: stringList('BGP communities attached: standard (AS:value), large (large:A:B:C) or a Community alias.'),
      localPref: integer('LOCAL_PREF attached on iBGP sessions.', { format: 'int32' }),
      peers: stringList('BGPPeer names to announce to; every peer when empty.'),
    },
    undefined,
    {
      // A service selector decides per service, which an aggregated prefix (shared by many services) cannot honour.
      'x-kubernetes-validations': [
        {
          message: 'serviceSelectors need the default aggregation lengths (32 for IPv4, 128 for IPv6)',
          rule:
            '!has(self.serviceSelectors) || size(self.serviceSelectors) == 0 || ' +
            '((!has(self.aggregationLength) || self.aggregationLength == 32) && ' +
            '(!has(self.aggregationLengthV6) || self.aggregationLengthV6 == 128))',
        },
      ],
    },
  );
  return crd({
    kind: 'BGPAdvertisement',
    plural: 'bgpadvertisements',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('IPAddressPools', '.spec.ipAddressPools'),
          column('IPAddressPool Selectors', '.spec.ipAddressPoolSelectors'),
          column('Peers', '.spec.peers'),
          column('Node Selectors', '.spec.nodeSelectors', 'string', 10),
        ],
        schema: root('Announces pool addresses to BGP peers.', { spec, status: NO_STATUS }),
      },
    ],
  });
}

function bfdProfile() {
  const interval = (what) => integer(`${what}, in milliseconds.`, { format: 'int32', minimum: 10, maximum: 60000 });
  const spec = object('BFD session parameters (RFC 5880) for the BGP sessions that name this profile.', {
    detectMultiplier: integer('Missed packets before the session is declared down.', { format: 'int32', minimum: 2, maximum: 255 }),
    echoInterval: interval('Minimum interval between echo packets'),
    echoMode: boolean('Whether echo packets are used.'),
    minimumTtl: integer('Lowest TTL accepted on incoming packets (multi-hop sessions).', {
      format: 'int32',
      minimum: 1,
      maximum: 254,
    }),
    passiveMode: boolean('Wait for the peer to start the session instead of starting it.'),
    receiveInterval: interval('Minimum interval between received control packets'),
    transmitInterval: interval('Minimum interval between sent control packets'),
  });
  return crd({
    kind: 'BFDProfile',
    plural: 'bfdprofiles',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('Passive Mode', '.spec.passiveMode', 'boolean'),
          column('Transmit Interval', '.spec.transmitInterval', 'integer'),
          column('Receive Interval', '.spec.receiveInterval', 'integer'),
          column('Multiplier', '.spec.detectMultiplier', 'integer'),
        ],
        schema: root('Bidirectional Forwarding Detection settings.', { spec, status: NO_STATUS }),
      },
    ],
  });
}

function community() {
  const spec = object('Named BGP communities, usable by name in BGPAdvertisement.communities.', {
    communities: {
      description: 'The aliases.',
      items: object('One alias.', {
        name: string('The name advertisements use.'),
        value: string('The community: AS:value or large:A:B:C.'),
      }),
      type: 'array',
    },
  });
  return crd({
    kind: 'Community',
    plural: 'communities',
    versions: [{ name: 'v1beta1', schema: root('Aliases for BGP communities.', { spec, status: NO_STATUS }) }],
  });
}

export const CONFIG_KINDS = [ipAddressPool, l2Advertisement, bgpAdvertisement, bfdProfile, community];
