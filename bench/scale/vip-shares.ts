/**
 * Pinned services spread over the nodes of a lab (bench/failover and bench/gossip-soak with many services), pure:
 * which node must hold which VIP once the nodes agree on every owner (each node's share), and whether every node
 * holds exactly its share, bound on its VIP interface and announced, and nothing of the others'. That is what
 * "settled" means there: a node that restarts binds its share in batches while the others release it at once,
 * so a partial share, or a VIP still held by its previous owner, is a lab that is still moving.
 */

/** Node name -> the VIPs it must hold. */
export type Shares = ReadonlyMap<string, ReadonlySet<string>>;

/** One node's view of the owners, as /v1/status lists them. */
export interface OwnersView {
  readonly node: string;
  readonly services: readonly { readonly ips: readonly string[]; readonly protocol: string; readonly owner: string | null }[];
}

/** What one node holds, as its snapshot's `local` says. */
export interface Holding {
  readonly node: string;
  readonly announced: readonly string[];
  readonly bound: readonly string[];
}

/** How many example VIPs a "not yet" message names: enough to look one up, short enough to read. */
const EXAMPLES = 3;

const examples = (ips: readonly string[]) =>
  `${ips.slice(0, EXAMPLES).join(', ')}${ips.length > EXAMPLES ? ` and ${ips.length - EXAMPLES} more` : ''}`;

/**
 * Each node's share of `vips` once every view names the same owner (one of the viewing nodes) for every one of
 * them; otherwise why not yet, with a few of the VIPs still disputed or without an owner.
 */
export function agreedShares(vips: readonly string[], views: readonly OwnersView[]): Shares | string {
  const nodes = new Set(views.map((v) => v.node));
  const ownerMaps = views.map((v) => {
    const owners = new Map<string, string | null>();
    for (const s of v.services) if (s.protocol === 'layer2') for (const ip of s.ips) owners.set(ip, s.owner);
    return owners;
  });
  const shares = new Map<string, Set<string>>([...nodes].map((n) => [n, new Set<string>()]));
  const unsettled: string[] = [];
  for (const vip of vips) {
    const seen = new Set(ownerMaps.map((m) => m.get(vip) ?? null));
    const [owner] = [...seen];
    if (seen.size !== 1 || !owner || !nodes.has(owner)) unsettled.push(vip);
    else shares.get(owner)!.add(vip);
  }
  if (unsettled.length > 0) {
    const first = unsettled[0]!;
    const says = views.map((v, i) => `${v.node} says ${ownerMaps[i]!.get(first) ?? 'nobody'}`).join(', ');
    return `${unsettled.length} of ${vips.length} VIPs have no owner all nodes agree on (${examples(unsettled)}; ${first}: ${says})`;
  }
  return shares;
}

/**
 * Undefined when every node binds and announces exactly its share of the VIPs in `shares` (nothing missing,
 * nothing of another node's); otherwise what each node still lacks or still holds. Addresses outside the
 * shares (another service's VIP) are not looked at.
 */
export function shareMismatch(shares: Shares, holdings: readonly Holding[]): string | undefined {
  const owner = new Map<string, string>();
  for (const [node, vips] of shares) for (const vip of vips) owner.set(vip, node);
  const problems: string[] = [];
  for (const h of holdings) {
    const share = shares.get(h.node) ?? new Set<string>();
    for (const [verb, list] of [
      ['announces', h.announced],
      ['binds', h.bound],
    ] as const) {
      const held = new Set(list.filter((ip) => owner.has(ip)));
      const missing = [...share].filter((ip) => !held.has(ip));
      const others = [...held].filter((ip) => owner.get(ip) !== h.node);
      if (missing.length > 0 || others.length > 0) {
        const parts = [`${verb} ${share.size - missing.length} of its ${share.size}`];
        if (missing.length > 0) parts.push(`not ${examples(missing)}`);
        if (others.length > 0) parts.push(`and ${others.length} of the others' (${examples(others)})`);
        problems.push(`${h.node} ${parts.join(', ')}`);
      }
    }
  }
  const unseen = [...shares.keys()].filter((node) => !holdings.some((h) => h.node === node));
  for (const node of unseen) problems.push(`${node} did not say what it holds`);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** The number of VIPs in each node's share, in `nodes` order: "node-1 3340, node-2 3322, ...". */
export function describeShares(shares: Shares, nodes: readonly string[]): string {
  return nodes.map((n) => `${n} ${shares.get(n)?.size ?? 0}`).join(', ');
}
