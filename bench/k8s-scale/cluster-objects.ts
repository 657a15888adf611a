// The objects of a large cluster as a real API server returns them (Kubernetes 1.30-1.32): Services applied
// with kubectl (last-applied annotation, managedFields of two managers), EndpointSlices written by the
// EndpointSlice controller (targetRefs, zones, ports, its managedFields), Nodes as the kubelet reports them
// (addresses, capacity, conditions, a page of cached images). Shapes follow what `kubectl get -o json` prints on a
// kubeadm cluster; sizes matter here because the speaker's informers keep what they receive. Pure.
import type { KubeObject } from '../../test/support/fake-apiserver';

export const NS = 'metallb-system';
/** Each Service has this many EndpointSlices (one per address family of a dual-stack service, as the controller cuts them). */
export const SLICES_PER_SERVICE = 2;
/** Nodes serving each Service's endpoints (its pods' nodes). */
const ENDPOINT_NODES_PER_SERVICE = 3;
/** Images a kubelet reports in Node status (it reports up to 50; a busy node has dozens). */
const IMAGES_PER_NODE = 30;
/** Namespaces the Services are spread over. */
const SERVICE_NAMESPACES = 20;
export const POOL_NAME = 'scale';
/** The pool: 10.128.0.0/16 holds 65,536 addresses, more than any size the bench runs. */
export const POOL_CIDR = '10.128.0.0/16';

const TIME = '2026-11-30T08:00:00Z';

function managed(manager: string, operation: string, fields: object, subresource?: string): object {
  return {
    manager,
    operation,
    apiVersion: 'v1',
    time: TIME,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
    ...(subresource && { subresource }),
  };
}

export function nodeName(i: number): string {
  return `node-${String(i).padStart(4, '0')}`;
}

export function serviceNamespace(i: number): string {
  return `team-${i % SERVICE_NAMESPACES}`;
}

export function serviceName(i: number): string {
  return `svc-${String(i).padStart(5, '0')}`;
}

export function serviceNamespaces(): string[] {
  return Array.from({ length: SERVICE_NAMESPACES }, (_, i) => `team-${i}`);
}

/** The nodes running service i's pods: spread so that every node serves about as many services. */
export function endpointNodes(i: number, nodes: number): string[] {
  return Array.from({ length: Math.min(ENDPOINT_NODES_PER_SERVICE, nodes) }, (_, k) => nodeName((i * 7 + k * 331) % nodes));
}

/** A LoadBalancer Service as kubectl apply leaves it, defaulted by the API server, no status yet. */
export function service(i: number): KubeObject {
  const name = serviceName(i);
  const namespace = serviceNamespace(i);
  const clusterIP = `10.96.${(i >> 8) & 255}.${i & 255}`;
  const applied = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { annotations: {}, labels: { app: name, tier: 'frontend' }, name, namespace },
    spec: {
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, targetPort: 8080 }],
      selector: { app: name },
      type: 'LoadBalancer',
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace,
      labels: { app: name, tier: 'frontend' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(applied)}\n` },
      managedFields: [
        managed('kubectl-client-side-apply', 'Update', {
          'f:metadata': {
            'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
            'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} },
          },
          'f:spec': {
            'f:allocateLoadBalancerNodePorts': {},
            'f:externalTrafficPolicy': {},
            'f:internalTrafficPolicy': {},
            'f:ports': {
              '.': {},
              'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
            },
            'f:selector': {},
            'f:sessionAffinity': {},
            'f:type': {},
          },
        }),
      ],
    },
    spec: {
      allocateLoadBalancerNodePorts: true,
      clusterIP,
      clusterIPs: [clusterIP],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30000 + (i % 2767),
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', nodePort: 32767 - (i % 2767), port: 80, protocol: 'TCP', targetPort: 8080 }],
      selector: { app: name },
      sessionAffinity: 'None',
      type: 'LoadBalancer',
    },
    status: { loadBalancer: {} },
  } as unknown as KubeObject;
}

/** The EndpointSlices of service i, as the EndpointSlice controller writes them (ready pods on endpointNodes). */
export function endpointSlices(i: number, nodes: number): KubeObject[] {
  const name = serviceName(i);
  const namespace = serviceNamespace(i);
  return Array.from({ length: SLICES_PER_SERVICE }, (_, s) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    addressType: 'IPv4',
    metadata: {
      name: `${name}-${s}x${(i * 31 + s).toString(36).padStart(4, 'q')}`,
      generateName: `${name}-`,
      namespace,
      labels: {
        app: name,
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
        'kubernetes.io/service-name': name,
        tier: 'frontend',
      },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': TIME },
      ownerReferences: [{ apiVersion: 'v1', blockOwnerDeletion: true, controller: true, kind: 'Service', name, uid: `uid-svc-${i}` }],
      managedFields: [
        managed('kube-controller-manager', 'Update', {
          'f:addressType': {},
          'f:endpoints': {},
          'f:metadata': {
            'f:annotations': { '.': {}, 'f:endpoints.kubernetes.io/last-change-trigger-time': {} },
            'f:generateName': {},
            'f:labels': {
              '.': {},
              'f:app': {},
              'f:endpointslice.kubernetes.io/managed-by': {},
              'f:kubernetes.io/service-name': {},
              'f:tier': {},
            },
            'f:ownerReferences': { '.': {}, [`k:{"uid":"uid-svc-${i}"}`]: {} },
          },
          'f:ports': {},
        }),
      ],
    },
    endpoints: endpointNodes(i, nodes).map((node, k) => ({
      addresses: [`10.244.${(i * 3 + k) & 255}.${(s * 64 + k) & 255}`],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: node,
      targetRef: { kind: 'Pod', name: `${name}-7d9c8b6f5-${k}${s}abc`, namespace, uid: `uid-pod-${i}-${s}-${k}` },
      zone: `zone-${k}`,
    })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  })) as unknown as KubeObject[];
}

/** A Node as the kubelet reports it, Ready. */
export function node(i: number): KubeObject {
  const name = nodeName(i);
  const ip = `10.0.${(i >> 8) & 255}.${i & 255}`;
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    lastHeartbeatTime: TIME,
    lastTransitionTime: TIME,
    reason,
    message: `kubelet reports ${type} ${status}`,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.kubernetes.io/region': 'eu-west-1',
        'topology.kubernetes.io/zone': `zone-${i % 3}`,
      },
      annotations: {
        'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///var/run/containerd/containerd.sock',
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      managedFields: [
        managed('kubelet', 'Update', { 'f:metadata': { 'f:annotations': {}, 'f:labels': {} } }),
        managed('kubelet', 'Update', { 'f:status': { 'f:conditions': {}, 'f:images': {}, 'f:nodeInfo': {} } }, 'status'),
        managed('kube-controller-manager', 'Update', { 'f:spec': { 'f:podCIDR': {}, 'f:podCIDRs': {} } }),
      ],
    },
    spec: {
      podCIDR: `10.244.${i & 255}.0/24`,
      podCIDRs: [`10.244.${i & 255}.0/24`],
      providerID: `aws:///eu-west-1a/i-${i.toString(16).padStart(17, '0')}`,
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      allocatable: { cpu: '4', 'ephemeral-storage': '95491281146', memory: '15928328Ki', pods: '110' },
      capacity: { cpu: '4', 'ephemeral-storage': '103609084Ki', memory: '16030728Ki', pods: '110' },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
        condition('Ready', 'True', 'KubeletReady'),
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images: Array.from({ length: IMAGES_PER_NODE }, (_, k) => ({
        names: [
          `registry.example.com/team-${k}/app@sha256:${(k * 7919 + 12345).toString(16).padStart(64, '0')}`,
          `registry.example.com/team-${k}/app:v1.${k}.0`,
        ],
        sizeBytes: 10_000_000 + k * 1_234_567,
      })),
      nodeInfo: {
        architecture: 'amd64',
        bootID: `boot-${i}`,
        containerRuntimeVersion: 'containerd://1.7.22',
        kernelVersion: '6.8.0-1015-aws',
        kubeProxyVersion: 'v1.32.0',
        kubeletVersion: 'v1.32.0',
        machineID: `machine-${i}`,
        operatingSystem: 'linux',
        osImage: 'Ubuntu 24.04.1 LTS',
        systemUUID: `uuid-${i}`,
      },
    },
  } as unknown as KubeObject;
}

/** The speaker Pod of node i (DaemonSet, host network), Running at `ip`. */
export function speakerPod(i: number, ip: string): KubeObject {
  const name = nodeName(i);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `speaker-${name}`, namespace: NS, labels: { app: 'metallb', component: 'speaker' } },
    spec: { nodeName: name, hostNetwork: true },
    status: { podIP: ip, phase: 'Running' },
  } as unknown as KubeObject;
}

export function pool(): KubeObject {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'IPAddressPool',
    metadata: { name: POOL_NAME, namespace: NS },
    spec: { addresses: [POOL_CIDR] },
  } as unknown as KubeObject;
}

export function l2Advertisement(): KubeObject {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'L2Advertisement',
    metadata: { name: 'scale', namespace: NS },
    spec: { ipAddressPools: [POOL_NAME] },
  } as unknown as KubeObject;
}

export function namespace(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  } as unknown as KubeObject;
}

/** The controller's Deployment (the memberlist Secret's owner). */
export function controllerDeployment(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'controller', namespace: NS },
    spec: {
      selector: { matchLabels: { app: 'metallb', component: 'controller' } },
      template: { metadata: { labels: { app: 'metallb', component: 'controller' } }, spec: { containers: [] } },
    },
  } as unknown as KubeObject;
}
