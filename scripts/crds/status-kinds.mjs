// The kinds mlb writes and users read: ServiceL2Status (which node answers ARP/NDP for a service),
// ServiceBGPStatus (which nodes announce it to which peers) and ConfigurationState (whether each component's
// configuration loaded). Shapes as MetalLB v0.16 writes them, so `kubectl get` and tools built for MetalLB read
// mlb's objects unchanged.
import { column, crd, emptyObject, immutable, integer, object, root, string, stringList } from './schema-parts.mjs';

const IMMUTABLE = 'set when the object is created and never changed';

/** node/serviceName/serviceNamespace: the identity of a status object, fixed for its life as in MetalLB. */
function serviceIdentity(nodeDescription) {
  return {
    node: immutable(string(nodeDescription), `node is ${IMMUTABLE}`),
    serviceName: immutable(string('Name of the service.'), `serviceName is ${IMMUTABLE}`),
    serviceNamespace: immutable(string('Namespace of the service.'), `serviceNamespace is ${IMMUTABLE}`),
  };
}

function serviceL2Status() {
  const status = object('The announcing node, as its speaker last wrote it.', {
    ...serviceIdentity('The node that answers ARP/NDP for the service addresses.'),
    interfaces: {
      description: 'The interfaces it answers on, listed only when the L2Advertisement restricts them.',
      items: object('An interface.', { name: string('Interface name.') }),
      type: 'array',
    },
  });
  return crd({
    kind: 'ServiceL2Status',
    plural: 'servicel2statuses',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('Allocated Node', '.status.node'),
          column('Service Name', '.status.serviceName'),
          column('Service Namespace', '.status.serviceNamespace'),
        ],
        schema: root('Where a layer 2 service is announced from (one object per service).', {
          spec: emptyObject('Empty: everything is in status.'),
          status,
        }),
      },
    ],
  });
}

function serviceBGPStatus() {
  const status = object('One announcing node and the peers it is configured to announce the service to.', {
    ...serviceIdentity('The announcing node.'),
    peers: stringList('BGPPeer names, sorted; configured peers, not session state.'),
  });
  return crd({
    kind: 'ServiceBGPStatus',
    plural: 'servicebgpstatuses',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('Node', '.status.node'),
          column('Service Name', '.status.serviceName'),
          column('Service Namespace', '.status.serviceNamespace'),
        ],
        schema: root('Where a BGP service is announced from (one object per service and node).', {
          spec: emptyObject('Empty: everything is in status.'),
          status,
        }),
      },
    ],
  });
}

/** A meta/v1 Condition, as Kubernetes defines it (the bounds and patterns are the API's own). */
function condition() {
  return object(
    'One aspect of the state, with when it last changed.',
    {
      lastTransitionTime: string('When status last changed.', { format: 'date-time' }),
      message: string('What happened, for people.', { maxLength: 32768 }),
      observedGeneration: integer('The generation the condition was computed from.', { format: 'int64', minimum: 0 }),
      reason: string('Why, as a CamelCase word for programs.', {
        maxLength: 1024,
        minLength: 1,
        pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      }),
      status: string('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
      type: string('The aspect, e.g. poolReconcilerValid or configReconcilerValid.', {
        maxLength: 316,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      }),
    },
    ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  );
}

function configurationState() {
  const status = object('The result of the last configuration load.', {
    conditions: {
      description: 'One condition per part of the component that loads configuration, keyed by type.',
      items: condition(),
      type: 'array',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-list-type': 'map',
    },
    errorSummary: string('The messages of the failing conditions, one per line.'),
    result: string('Valid, Invalid, or Unknown before the first load.', { enum: ['Valid', 'Invalid', 'Unknown'] }),
  });
  return crd({
    kind: 'ConfigurationState',
    plural: 'configurationstates',
    versions: [
      {
        name: 'v1beta1',
        columns: [
          column('Result', '.status.result'),
          column('ErrorSummary', '.status.errorSummary'),
          column('Age', '.metadata.creationTimestamp', 'date'),
        ],
        schema: root('Whether a component (the controller, or the speaker of one node) loaded the configuration it was given.', { status }),
      },
    ],
  });
}

export const STATUS_KINDS = [serviceL2Status, serviceBGPStatus, configurationState];
