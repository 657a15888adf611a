/**
 * The configuration the BGP interop tests give `mlb daemon`: pools, advertisements (communities, a large community,
 * localPref, an aggregated pool) and three services (an IPv4 /32, an IPv6 /128, one in the aggregated /30), with
 * BGPPeers for whichever routers a test starts.
 */
export const NODE_ASN = 64512;
export const ROUTER_ASN = 64513;
export const SERVICE_V4 = '10.213.0.240';
export const SERVICE_V6 = 'fd00:213::240';
export const AGGREGATED = '10.213.0.244';

export interface PeerSpec {
  readonly name: string;
  readonly address: string;
  readonly asn?: number;
  readonly bfdProfile?: string;
}

export function bgpLabConfig(peers: readonly PeerSpec[], extra = ''): string {
  const peerDocs = peers
    .map(
      (p) => `---
apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata: { name: ${p.name}, namespace: metallb-system }
spec:
  myASN: ${NODE_ASN}
  peerASN: ${p.asn ?? ROUTER_ASN}
  peerAddress: ${p.address}
${p.bfdProfile ? `  bfdProfile: ${p.bfdProfile}\n` : ''}`,
    )
    .join('');
  return `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: bgp, namespace: metallb-system }
spec: { addresses: [10.213.0.240-10.213.0.243, 'fd00:213::240/125'] }
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: aggregated, namespace: metallb-system }
spec: { addresses: [10.213.0.244/30] }
---
apiVersion: metallb.io/v1beta1
kind: BGPAdvertisement
metadata: { name: bgp, namespace: metallb-system }
spec:
  ipAddressPools: [bgp]
  communities: ['65000:100', 'large:64512:1:2']
  localPref: 200
---
apiVersion: metallb.io/v1beta1
kind: BGPAdvertisement
metadata: { name: aggregated, namespace: metallb-system }
spec:
  ipAddressPools: [aggregated]
  aggregationLength: 30
---
apiVersion: metallb.io/v1beta1
kind: BFDProfile
metadata: { name: fast, namespace: metallb-system }
spec: { receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3 }
${peerDocs}---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: demo, annotations: { metallb.io/loadBalancerIPs: ${SERVICE_V4} } }
spec: { type: LoadBalancer, ports: [{ port: 8080, protocol: TCP }] }
---
apiVersion: v1
kind: Service
metadata: { name: web6, namespace: demo, annotations: { metallb.io/loadBalancerIPs: '${SERVICE_V6}' } }
spec: { type: LoadBalancer, ipFamilies: [IPv6], ports: [{ port: 8080, protocol: TCP }] }
---
apiVersion: v1
kind: Service
metadata: { name: wide, namespace: demo, annotations: { metallb.io/loadBalancerIPs: ${AGGREGATED} } }
spec: { type: LoadBalancer, ports: [{ port: 8080, protocol: TCP }] }
${extra}`;
}
