import { describe, expect, it } from 'vitest';
import { formatCIDR, formatIP } from '../../src/ip';
import { ServiceAnnotation, serviceAnnotation } from '../../src/model';
import { fixture, parseErrors, parseOk } from './parse-helpers';

const service = (spec: string, extra = ''): string => `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n${extra}spec:\n${spec}`;

describe('Service', () => {
  it("reads a tutorial lab's services with raw annotations the allocator can read", () => {
    const services = parseOk(fixture('valid', 'tutorial-l2.yaml')).services;
    expect(services.map((s) => `${s.meta.namespace}/${s.meta.name}`)).toEqual(['demo/hello-a', 'demo/hello-b', 'demo/hello-lb']);
    const helloA = services[0]!;
    expect(serviceAnnotation(helloA, ServiceAnnotation.loadBalancerIPs)).toBe('192.168.10.210');
    expect(serviceAnnotation(helloA, ServiceAnnotation.allowSharedIP)).toBe('hello-shared');
    expect(helloA).toMatchObject({
      type: 'LoadBalancer',
      ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
      selector: { 'app.kubernetes.io/name': 'hello' },
      externalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
      ingressIPs: [],
    });
  });

  it('reads every field, legacy annotation prefix and status ingress included', () => {
    const web = parseOk(fixture('valid', 'full-featured.yaml')).services[0]!;
    expect(web).toMatchObject({
      loadBalancerIP: '203.0.113.5',
      loadBalancerClass: 'mlb',
      externalTrafficPolicy: 'Local',
      ipFamilyPolicy: 'RequireDualStack',
      ipFamilies: ['IPv6', 'IPv4'],
      ports: [
        { name: 'http', protocol: 'TCP', port: 80 },
        { name: 'dns', protocol: 'UDP', port: 53 },
      ],
    });
    expect(serviceAnnotation(web, ServiceAnnotation.allowSharedIP)).toBe('web');
    expect(web.ingressIPs.map(formatIP)).toEqual(['203.0.113.5', '2001:db8:1::5']);
  });

  it('keeps services of other types (downstream ignores them) and defaults to ClusterIP and the default namespace', () => {
    const [svc] = parseOk(service('  ports:\n    - port: 80\n')).services;
    expect(svc).toMatchObject({ type: 'ClusterIP', meta: { namespace: 'default' } });
  });

  it('requires ports on a LoadBalancer and names when there are several', () => {
    expect(parseErrors(service('  type: LoadBalancer\n'))[0]?.message).toBe('missing required field "ports" in Service spec');
    expect(parseErrors(service('  type: LoadBalancer\n  ports:\n    - port: 80\n    - port: 81\n')).map((e) => e.code)).toEqual([
      'missingField',
      'missingField',
    ]);
  });

  it('allows one port number for TCP and UDP', () => {
    const [svc] = parseOk(service('  ports:\n    - {name: a, port: 53}\n    - {name: b, port: 53, protocol: UDP}\n')).services;
    expect(svc?.ports.map((p) => `${p.protocol}/${p.port}`)).toEqual(['TCP/53', 'UDP/53']);
  });

  it('uses the Service name rule (an RFC 1035 label)', () => {
    const errors = parseErrors('apiVersion: v1\nkind: Service\nmetadata:\n  name: 1web\n');
    expect(errors[0]?.message).toContain('invalid Service name "1web"');
  });
});

describe('Node', () => {
  it('reads labels, conditions, IP addresses and mlb.io/subnets; a namespace is ignored', () => {
    const node = parseOk(fixture('valid', 'full-featured.yaml')).nodes[0]!;
    expect(node.meta).toMatchObject({ name: 'worker-1', namespace: '', labels: { rack: 'r1' } });
    expect(node.conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'NetworkUnavailable', status: 'False' },
    ]);
    expect(node.addresses.map(formatIP)).toEqual(['203.0.113.100']);
    expect(node.subnets.map(formatCIDR)).toEqual(['203.0.113.0/24', '2001:db8:1::/64']);
  });

  it('accepts `kubectl get node -o yaml` bookkeeping without complaint', () => {
    const text =
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  uid: 1234\n  resourceVersion: "5"\n  creationTimestamp: "2026-10-17T00:00:00Z"\nspec:\n  podCIDR: 10.244.0.0/24\nstatus:\n  capacity: {cpu: "4"}\n  nodeInfo: {kernelVersion: "6.1"}\n';
    expect(parseOk(text).nodes[0]?.meta.name).toBe('n1');
  });
});
