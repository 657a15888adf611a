/**
 * Reads, over each daemon's control socket, what vip-shares.ts judges: the owners a node sees (/v1/status, the
 * services without their candidates: at 10,000 services a fifth of the snapshot) and what it holds (one page of
 * /v1/snapshot: `local` comes whole with every page, so a page of one service is the cheap way to it). The
 * client's getSnapshot would read all the pages, every service's candidates included: megabytes per look at
 * 10,000 services, which the daemons under measurement would pay for.
 */
import { request } from 'node:http';
import { connectControl } from '../../src/cli/control-client';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';
import { agreedShares, shareMismatch, type Holding, type OwnersView, type Shares } from './vip-shares';

/** The daemon answers reads from memory; a busy one (a recomputation at 10,000 services) within seconds. */
const READ_TIMEOUT_MS = 10_000;

/** GET /v1/snapshot?offset&limit over the unix socket: members, `local`, and `limit` services from `offset`. */
export function readSnapshotPage(socket: string, offset: number, limit: number): Promise<ControlSnapshot> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: socket, method: 'GET', path: `/v1/snapshot?offset=${offset}&limit=${limit}`, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) {
            reject(new Error(`${socket}: /v1/snapshot answered ${res.statusCode}: ${text.slice(0, 300)}`));
            return;
          }
          try {
            resolve(JSON.parse(text) as ControlSnapshot);
          } catch (error) {
            reject(error as Error);
          }
        });
        res.once('error', reject);
      },
    );
    req.setTimeout(READ_TIMEOUT_MS, () => req.destroy(new Error(`${socket}: no snapshot page within ${READ_TIMEOUT_MS} ms`)));
    req.once('error', reject);
    req.end();
  });
}

/** What the node holds: its snapshot's `local` lists. */
export function holdingOf(node: string, snapshot: Pick<ControlSnapshot, 'local'>): Holding {
  return { node, announced: snapshot.local.announced.map((a) => a.ip), bound: snapshot.local.bound };
}

export async function readHolding(node: string, socket: string): Promise<Holding> {
  return holdingOf(node, await readSnapshotPage(socket, 0, 1));
}

/** The owner of every service as the node sees it. */
export async function readOwners(node: string, socket: string): Promise<OwnersView> {
  const status = await connectControl(socket).getStatus();
  return { node, services: status.services };
}

export interface ControlledNode {
  readonly name: string;
  readonly socket: string;
}

/** Why the nodes do not hold exactly their shares now (a node that does not answer included); undefined once they do. */
export async function sharesNotHeldBecause(shares: Shares, nodes: readonly ControlledNode[]): Promise<string | undefined> {
  const holdings = await Promise.all(nodes.map((n) => readHolding(n.name, n.socket).catch(() => undefined)));
  const silent = nodes.filter((_, i) => !holdings[i]).map((n) => n.name);
  if (silent.length > 0) return `no snapshot from ${silent.join(', ')}`;
  return shareMismatch(
    shares,
    holdings.map((h) => h!),
  );
}

/**
 * Polls every `pollMs` until all nodes name the same owner for each of `vips` and each binds and announces
 * exactly its share; returns the shares. `check` runs before every look (it throws when a daemon exited);
 * past `timeoutMs` this throws with the last reason.
 */
export async function waitForShares(
  vips: readonly string[],
  nodes: readonly ControlledNode[],
  options: { readonly timeoutMs: number; readonly pollMs: number; readonly check?: () => void },
): Promise<Shares> {
  const deadline = Date.now() + options.timeoutMs;
  let why = 'not looked yet';
  for (;;) {
    options.check?.();
    const views = await Promise.all(nodes.map((n) => readOwners(n.name, n.socket).catch(() => undefined)));
    const shares = views.every((v) => v !== undefined) ? agreedShares(vips, views) : 'a daemon did not answer /v1/status';
    if (typeof shares === 'string') why = shares;
    else {
      const notHeld = await sharesNotHeldBecause(shares, nodes);
      if (notHeld === undefined) return shares;
      why = notHeld;
    }
    if (Date.now() > deadline)
      throw new Error(`not within ${options.timeoutMs} ms: every node holding its share of ${vips.length} VIPs (${why})`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
