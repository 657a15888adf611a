// Services as the API server returns them, pools from YAML through the file parser, and a fake "API" that
// applies the controller's writes the way the server would (ipMode defaulted, new resourceVersion).
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { parseConfig, type IPAddressPool, type Snapshot } from '../../src/model';
import type { ApiService } from '../../src/controller/api-objects';
import { EMPTY_MEMORY, type ControllerMemory, type ReconcileOutput, reconcileServices } from '../../src/controller/reconcile-services';

export interface ServiceOptions {
  namespace?: string;
  type?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  lbClass?: string;
  loadBalancerIP?: string;
  annotations?: Record<string, string>;
  ingress?: Array<{ ip: string; ipMode?: string }>;
  ports?: Array<{ port: number; protocol?: string; name?: string }>;
  externalTrafficPolicy?: string;
  selector?: Record<string, string>;
  uid?: string;
}

export function svc(name: string, o: ServiceOptions = {}): ApiService {
  const clusterIPs = o.clusterIPs ?? ['10.96.0.10'];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: '1',
      ...(o.annotations && { annotations: o.annotations }),
    },
    spec: {
      type: o.type ?? 'LoadBalancer',
      ...(clusterIPs.length > 0 && { clusterIP: clusterIPs[0], clusterIPs }),
      ipFamilies: o.ipFamilies ?? clusterIPs.map((ip) => (ip.includes(':') ? 'IPv6' : 'IPv4')),
      ipFamilyPolicy: o.ipFamilyPolicy ?? 'SingleStack',
      ports: o.ports ?? [{ port: 80, protocol: 'TCP', name: 'http' }],
      externalTrafficPolicy: o.externalTrafficPolicy ?? 'Cluster',
      ...(o.selector && { selector: o.selector }),
      ...(o.lbClass && { loadBalancerClass: o.lbClass }),
      ...(o.loadBalancerIP && { loadBalancerIP: o.loadBalancerIP }),
    },
    status: { loadBalancer: o.ingress ? { ingress: o.ingress } : {} },
  };
}

export function snapshotOf(yaml: string): Snapshot {
  const parsed = parseConfig(yaml, 'test.yaml');
  if (!parsed.ok) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.snapshot;
}

export function poolsOf(yaml: string): readonly IPAddressPool[] {
  return snapshotOf(yaml).pools;
}

export function pool(name: string, addresses: string[], extra = ''): string {
  return `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: ${name}, namespace: metallb-system}
spec:
  addresses: [${addresses.map((a) => JSON.stringify(a)).join(', ')}]
${extra}
---
`;
}

/** The Service documents of a YAML text, as API JSON. */
export function servicesOf(yaml: string): ApiService[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJSON() as ApiService & { kind?: string })
    .filter((d) => d?.kind === 'Service')
    .map((d) => ({ ...d, metadata: { uid: `uid-${d.metadata.name}`, resourceVersion: '1', ...d.metadata } }));
}

/** What the API server stores after the controller's PUT to /status: spec kept, ipMode defaulted, RV bumped. */
export function applyWrite(current: ApiService, written: ApiService): ApiService {
  const ingress = (written.status?.loadBalancer?.ingress ?? []).map((e) => (e.ip ? { ipMode: 'VIP', ...e } : e));
  return {
    ...current,
    metadata: { ...written.metadata, resourceVersion: String(Number(current.metadata.resourceVersion ?? '0') + 1) },
    status: { ...written.status, loadBalancer: ingress.length > 0 ? { ingress } : {} },
  };
}

/** A little cluster: services stored as the server would, passes run against them, writes applied. */
export class Cluster {
  memory: ControllerMemory = EMPTY_MEMORY;
  services = new Map<string, ApiService>();
  constructor(
    public pools: readonly IPAddressPool[] | undefined,
    public lbClass?: string,
  ) {}

  put(...services: ApiService[]): this {
    for (const s of services) this.services.set(`${s.metadata.namespace}/${s.metadata.name}`, s);
    return this;
  }

  delete(key: string): this {
    this.services.delete(key);
    return this;
  }

  get(key: string): ApiService {
    const s = this.services.get(key);
    if (!s) throw new Error(`no service ${key}`);
    return s;
  }

  /** One pass; its writes are applied to the stored services. */
  pass(): ReconcileOutput {
    const out = reconcileServices({
      pools: this.pools,
      services: [...this.services.values()],
      options: this.lbClass === undefined ? {} : { lbClass: this.lbClass },
      memory: this.memory,
    });
    this.memory = out.memory;
    for (const d of out.decisions) {
      if (d.write) this.services.set(d.service, applyWrite(this.get(d.service), d.write));
    }
    return out;
  }

  /** A controller restart: same objects in the API, nothing in memory. */
  restart(): this {
    this.memory = EMPTY_MEMORY;
    return this;
  }

  ingress(key: string): string[] {
    return (this.get(key).status?.loadBalancer?.ingress ?? []).map((e) => e.ip ?? '');
  }

  allocatedFrom(key: string): string | undefined {
    return this.get(key).metadata.annotations?.['metallb.io/ip-allocated-from-pool'];
  }
}

export function decision(out: ReconcileOutput, key: string) {
  const d = out.decisions.find((x) => x.service === key);
  if (!d) throw new Error(`no decision for ${key}`);
  return d;
}

export { parseYaml };
