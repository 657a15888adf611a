/**
 * Kubernetes mode in BGP, end to end in network namespaces: the fake API server with deploy/'s RBAC, `mlb controller`
 * and two `mlb daemon --kubernetes` speakers peering with FRR 8.4. A Service created with kubectl gets an address and
 * FRR installs it with both nodes as next hops; each speaker writes its ServiceBGPStatus; a killed speaker's next hop
 * goes; no request was refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_NAMESPACE, kubectlMissing } from '../support/deploy-manifests';
import { canUseNetns, type LabHost } from '../support/netns-lab';
import { routerLabSkipReason, startFrr, type FrrRouter } from '../support/routers';
import { until } from '../support/until';
import { HTTP_PORT } from './daemon-lab';
import { APP_NAMESPACE, KubeLab, endpointSlice } from './kube-lab';

const netns = canUseNetns();
const skip = netns.ok ? (kubectlMissing() ?? routerLabSkipReason(['frr'])) : netns.why;

/** Private ASNs (RFC 6996): the nodes', and the router's (eBGP, as MetalLB's BGP tutorials set it up). */
const NODE_ASN = 64512;
const ROUTER_ASN = 64513;

const bgpObjects = (router: LabHost) => `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: bgp, namespace: ${INSTALL_NAMESPACE} }
spec: { addresses: [10.213.0.240-10.213.0.243] }
---
apiVersion: metallb.io/v1beta1
kind: BGPAdvertisement
metadata: { name: bgp, namespace: ${INSTALL_NAMESPACE} }
spec: { ipAddressPools: [bgp] }
---
apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata: { name: router, namespace: ${INSTALL_NAMESPACE} }
spec: { myASN: ${NODE_ASN}, peerASN: ${ROUTER_ASN}, peerAddress: ${router.ipv4} }
`;
const SERVICE_YAML = `apiVersion: v1
kind: Service
metadata: { name: web, namespace: ${APP_NAMESPACE} }
spec: { type: LoadBalancer, selector: { app: web }, ports: [{ port: ${HTTP_PORT}, protocol: TCP }] }
`;

describe.skipIf(skip !== undefined)(`Kubernetes mode with BGP against FRR${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let lab: KubeLab;
  let frr: FrrRouter;
  let ip: string;

  beforeAll(async () => {
    lab = await KubeLab.start((nodes) => [endpointSlice('web', HTTP_PORT, nodes)], 2);
    const router = lab.hosts.lab.addHost('router');
    frr = await startFrr(lab.hosts.lab, router, {
      asn: ROUTER_ASN,
      routerId: router.ipv4,
      neighbors: lab.hosts.nodes.map((n) => ({ address: n.ipv4, asn: NODE_ASN })),
    });
    lab.startController();
    const keyDir = await lab.memberlistKeyDir();
    for (const node of lab.hosts.nodes) lab.startSpeaker(node.name, keyDir);
    await lab.kubectl.ok(['apply', '--validate=false', '-f', '-'], { input: bgpObjects(router) });
  }, 60_000);
  afterAll(async () => {
    if (process.env.KUBE_LAB_LOGS && lab) console.log(lab.logs());
    frr?.stop();
    await lab?.destroy();
  });

  it('a Service created with kubectl is routed by FRR through both nodes, and each speaker writes its ServiceBGPStatus', async () => {
    await lab.kubectl.ok(['apply', '--validate=false', '-f', '-'], { input: SERVICE_YAML });
    ip = await until(
      'the Service has an ingress IP',
      async () =>
        (await lab.kubectl.ok(['get', 'svc', 'web', '-n', APP_NAMESPACE, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])) ||
        undefined,
      20_000,
    );
    expect(ip).toMatch(/^10\.213\.0\.24[0-3]$/);
    const nodeAddresses = lab.hosts.nodes.map((n) => n.ipv4).sort();
    const hops = await until(
      'the /32 with both next hops',
      () => frr.installedNextHops(`${ip}/32`).length === 2 && frr.installedNextHops(`${ip}/32`),
      60_000,
    );
    expect(hops.sort()).toEqual(nodeAddresses);
    const statuses = await until(
      'a ServiceBGPStatus per node',
      async () => {
        const list = JSON.parse(await lab.kubectl.ok(['get', 'servicebgpstatuses', '-n', INSTALL_NAMESPACE, '-o', 'json'])) as {
          items: { status?: { node?: string; serviceName?: string; peers?: string[] } }[];
        };
        return list.items.length === 2 ? list.items.map((i) => i.status) : undefined;
      },
      20_000,
    );
    expect(statuses.map((s) => s?.node).sort()).toEqual(lab.hosts.nodes.map((n) => n.name).sort());
    for (const s of statuses) expect(s).toMatchObject({ serviceName: 'web', peers: ['router'] });
  }, 90_000);

  it("kill -9 of a speaker: its next hop goes, the other node's stays", async () => {
    const [gone, stays] = lab.hosts.nodes;
    lab.hosts.daemon(gone!.name).child.kill('SIGKILL');
    await lab.hosts.daemon(gone!.name).exited();
    const hops = await until(
      'one next hop left',
      () => frr.installedNextHops(`${ip}/32`).length === 1 && frr.installedNextHops(`${ip}/32`),
      30_000,
    );
    expect(hops).toEqual([stays!.ipv4]);
  }, 45_000);

  it("no request of the controller or the speakers was refused by deploy/'s RBAC", () => {
    expect(lab.api.audit.count()).toBeGreaterThan(0);
    expect(lab.api.audit.forbidden()).toEqual([]);
  });
});
