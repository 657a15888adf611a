/**
 * API objects as a Kubernetes API server returns them (server-set metadata, defaulted Service fields, a Node's
 * kubelet status), and the same configuration as a file, for the translation tests.
 */
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { type ClusterObjects, emptyClusterObjects } from '../../../src/sources/k8s/translate-cluster';

let rv = 1000;
function serverMeta(name: string, namespace?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  rv += 1;
  return {
    name,
    ...(namespace ? { namespace } : {}),
    uid: `00000000-0000-4000-8000-${String(rv).padStart(12, '0')}`,
    resourceVersion: String(rv),
    generation: 1,
    creationTimestamp: '2026-11-30T10:00:00Z',
    managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-30T10:00:00Z', fieldsType: 'FieldsV1' }],
    ...extra,
  };
}

/** A list item: the API server's lists carry no apiVersion or kind per item. */
export function pool(name: string, addresses: string[], labels?: Record<string, string>): ApiObject {
  return {
    metadata: serverMeta(name, 'metallb-system', labels ? { labels } : {}),
    spec: { addresses, autoAssign: true, avoidBuggyIPs: false },
    status: { assignedIPv4: 0, assignedIPv6: 0, availableIPv4: 10, availableIPv6: 0 },
  };
}

export function l2Advertisement(name: string, spec: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: 'metallb.io/v1beta1', kind: 'L2Advertisement', metadata: serverMeta(name, 'metallb-system'), spec };
}

export interface ServiceFixture {
  readonly namespace?: string;
  readonly type?: string;
  readonly ingress?: string[];
  readonly policy?: 'Cluster' | 'Local';
  readonly annotations?: Record<string, string>;
}

export function service(name: string, f: ServiceFixture = {}): ApiObject {
  const type = f.type ?? 'LoadBalancer';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: serverMeta(name, f.namespace ?? 'default', f.annotations ? { annotations: f.annotations } : {}),
    spec: {
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, ...(type === 'LoadBalancer' ? { nodePort: 31000 } : {}) }],
      selector: { app: name },
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      type,
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      ...(type === 'LoadBalancer' ? { externalTrafficPolicy: f.policy ?? 'Cluster', allocateLoadBalancerNodePorts: true } : {}),
    },
    status: { loadBalancer: f.ingress ? { ingress: f.ingress.map((ip) => ({ ip, ipMode: 'VIP' })) } : {} },
  };
}

export interface NodeFixture {
  readonly labels?: Record<string, string>;
  readonly networkUnavailable?: boolean;
  readonly address?: string;
}

export function node(name: string, f: NodeFixture = {}): ApiObject {
  const now = '2026-12-01T10:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: serverMeta(name, undefined, {
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', ...f.labels },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    }),
    spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], providerID: `kind://docker/kind/${name}` },
    status: {
      capacity: { cpu: '8', memory: '16Gi', pods: '110' },
      allocatable: { cpu: '8', memory: '16Gi', pods: '110' },
      conditions: [
        ...(f.networkUnavailable === undefined
          ? []
          : [
              {
                type: 'NetworkUnavailable',
                status: f.networkUnavailable ? 'True' : 'False',
                reason: 'RouteCreated',
                message: 'route created',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ]),
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
      addresses: [
        { type: 'InternalIP', address: f.address ?? '172.18.0.2' },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { kubeletVersion: 'v1.32.4', osImage: 'Debian', architecture: 'amd64' },
      images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }],
      // A field newer than mlb: Kubernetes adds Node status fields from release to release.
      declaredFeatures: ['SomethingNew'],
    },
  };
}

export interface EndpointFixture {
  readonly ip: string;
  readonly node?: string;
  /** undefined: the field is absent (the API's "unknown"); null: written as null. */
  readonly ready?: boolean | null;
  readonly serving?: boolean;
  readonly terminating?: boolean;
}

export function slice(
  name: string,
  service: string | undefined,
  endpoints: EndpointFixture[],
  opts: { namespace?: string; family?: string } = {},
): ApiObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: serverMeta(name, opts.namespace ?? 'default', {
      labels: {
        ...(service ? { 'kubernetes.io/service-name': service } : {}),
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      },
      generateName: `${service ?? 'x'}-`,
    }),
    addressType: opts.family ?? 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: {
        ...(e.ready !== undefined ? { ready: e.ready } : {}),
        ...(e.serving !== undefined ? { serving: e.serving } : {}),
        ...(e.terminating !== undefined ? { terminating: e.terminating } : {}),
      },
      ...(e.node ? { nodeName: e.node } : {}),
      targetRef: { kind: 'Pod', namespace: opts.namespace ?? 'default', name: `pod-${e.ip}` },
    })),
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
  };
}

export function cluster(parts: Partial<ClusterObjects>): ClusterObjects {
  return { ...emptyClusterObjects(), ...parts };
}

/** The same configuration as `basicCluster()`, written as a file for the file source. */
export const BASIC_FILE = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: public, namespace: metallb-system}
spec:
  addresses: [192.0.2.0/28]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: l2, namespace: metallb-system}
spec:
  ipAddressPools: [public]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: LoadBalancer
  ports: [{name: http, protocol: TCP, port: 80}]
  selector: {app: web}
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  externalTrafficPolicy: Cluster
status:
  loadBalancer:
    ingress: [{ip: 192.0.2.1}]
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {kubernetes.io/hostname: node-a, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
  annotations: {node.alpha.kubernetes.io/ttl: "0", volumes.kubernetes.io/controller-managed-attach-detach: "true"}
status:
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 172.18.0.2}, {type: Hostname, address: node-a}]
`;

export function basicCluster(): ClusterObjects {
  return cluster({
    ipaddresspools: [pool('public', ['192.0.2.0/28'])],
    l2advertisements: [l2Advertisement('l2', { ipAddressPools: ['public'] })],
    services: [service('web', { ingress: ['192.0.2.1'] }), service('kubernetes', { type: 'ClusterIP' })],
    nodes: [node('node-a')],
  });
}
