/**
 * The incremental election. MetalLB recomputes every service on every memberlist event ("node event - forcing
 * sync"), hashing inside its sort comparator; with 10,000 services and 1,000 nodes that is ~10^8 hashes per
 * membership change. The index instead:
 *  - hashes each (node, first IP) pair once and keeps, per IP text, every known node in hash order (shared by
 *    services on the same IP; ETP Local units rank only their endpoint nodes);
 *  - keeps per L2 unit the position and id of its winner, and per node id its liveness and its position in every
 *    unit's order: a node-major matrix for the orders that hold every node (a join scans one contiguous row
 *    instead of touching 10,000 objects), and per node a list of (unit, position) for ETP Local orders, which
 *    hold only the unit's endpoint nodes (a matrix would be nodes x units for a few entries per unit: 20 MB of
 *    absent marks at 1,000 nodes and 10,000 services);
 *  - on a leave, re-elects only the L2 units that node won (scanning on from its position) and the BGP units
 *    it announced; on a join, only the L2 units where the node is eligible and ranks before the winner, and
 *    the BGP units where it is eligible.
 * Its outcomes and explanations always equal electAll (test/election/election-index.test.ts checks random
 * join/leave sequences).
 */
import { ElectionContext, type ElectionUnit } from './election-context';
import type { ElectionConfig, LiveMembers, MembershipChange, ServiceElectionInput } from './election-input';
import { explainUnit, outcomeOf, type ElectionOutcome, type Explanation } from './explain';
import { hashOrderIndices, newIndexArray, type NodeIndexArray } from './hash-order';
import { ReasonCode, reasonOfCode } from './reasons';
import { compareNames, unknownLiveMembers } from './verdict';
import type { NodeReason } from './reasons';
import { unitsOf } from './elect';

/**
 * The nodes a unit can ever elect, in hash order. Usually every known node, shared by all units on the same IP
 * text; for externalTrafficPolicy Local only the nodes with a local endpoint (no other node can ever be
 * eligible), hashed like MetalLB hashes its short candidate list.
 */
interface HashOrder {
  readonly order: NodeIndexArray;
}

/** No winner: no eligible live node. */
const NO_WINNER = -1;
/** A unit without a column in the positions matrix: BGP, or ETP Local (its positions are in the local lists). */
const NO_COLUMN = -1;

/**
 * A positions row holds positions below the node count, plus ABSENT ("not in this order"): the maximum value of
 * its element type, 16-bit while the nodes leave room for it.
 */
const UINT16_ABSENT = 0xffff;
const UINT32_ABSENT = 0xffff_ffff;

function absentFor(nodeCount: number): number {
  return nodeCount < UINT16_ABSENT ? UINT16_ABSENT : UINT32_ABSENT;
}

function newPositionRow(unitCount: number, nodeCount: number): NodeIndexArray {
  const row = nodeCount < UINT16_ABSENT ? new Uint16Array(unitCount) : new Uint32Array(unitCount);
  return row.fill(absentFor(nodeCount));
}

/** One IP of a unit whose outcome changed. */
export interface ElectionChange {
  readonly service: string;
  readonly ip: string;
  readonly protocol: ElectionUnit['protocol'];
  readonly winner: string | null;
  readonly previousWinner: string | null;
  /** Nodes that started announcing (L2: the new winner; BGP: the joining node). */
  readonly added: readonly string[];
  /** Nodes that stopped announcing. */
  readonly removed: readonly string[];
}

export class ElectionIndex {
  readonly context: ElectionContext;
  private units: ElectionUnit[] = [];
  /** Hash orders by IP text: they depend only on the nodes, so an index on the same context shares them. */
  private readonly orders: Map<string, HashOrder>;
  /** Per unit: its hash order (L2 at election time; BGP lazily, only explanations rank BGP nodes). */
  private unitOrders: (HashOrder | undefined)[] = [];
  /** Per L2 unit: the winner's position in its hash order, or NO_WINNER. Unused for BGP units. */
  private winnerPos = new Int32Array(0);
  /** Per L2 unit: the winner's node id, or NO_WINNER (a leave scans this contiguous array). */
  private winnerId = new Int32Array(0);
  /** Per unit: 1 for BGP. Kept apart from the unit objects so the hot loops stay in contiguous memory. */
  private isBGP = new Uint8Array(0);
  /**
   * Node-major positions: positions[id][column[u]] is node id's position in L2 unit u's order, or the array's
   * maximum value (ABSENT) when the node is not in it; only units whose order holds every node have a column.
   */
  private positions: NodeIndexArray[] = [];
  /** Per unit: its column in `positions`, or NO_COLUMN. */
  private column = new Int32Array(0);
  /**
   * The ETP Local units' positions, per node id: entries localStart[id] to localStart[id + 1] of localUnits
   * (ascending unit numbers) and localPositions (the node's position in that unit's order).
   */
  private localStart = new Int32Array(1);
  private localUnits = new Int32Array(0);
  private localPositions = new Int32Array(0);
  /** Per node id: 1 while a live member. */
  private live: Uint8Array;
  /** Memberlist disabled: every Node counts as live (until the first membership change). */
  private allLive = true;
  private readonly unknownLive = new Set<string>();

  /** `sharing`: an index on the same context whose hash orders this one may reuse (a reload's new index). */
  constructor(config: ElectionConfig | ElectionContext, sharing?: ElectionIndex) {
    this.context = config instanceof ElectionContext ? config : new ElectionContext(config);
    this.orders = sharing && sharing.context === this.context ? sharing.orders : new Map();
    // The preference tiers (deferral.ts) re-rank across nodes, which the per-node rows here cannot express. The
    // daemon elects with electAll while any node is in a tier (incremental-election.ts).
    if (this.context.config.mlb) throw new Error('ElectionIndex does not take mlb preference tiers (drain, warm-up): use electAll');
    this.live = new Uint8Array(this.context.nodeNames.length);
  }

  /** Cold election of every service. Returns the outcomes (explanations are built on demand by explain()). */
  elect(services: readonly ServiceElectionInput[], live: LiveMembers): ElectionOutcome[] {
    return this.electUnits(unitsOf(this.context, services), live);
  }

  /** elect() on units already made by this index's context (unitsFor), in election order. */
  electUnits(units: ElectionUnit[], live: LiveMembers): ElectionOutcome[] {
    const ctx = this.context;
    this.allLive = live === undefined;
    this.unknownLive.clear();
    for (let id = 0; id < ctx.nodeNames.length; id++) this.live[id] = live === undefined || live.has(ctx.nodeNames[id] as string) ? 1 : 0;
    if (live) for (const name of unknownLiveMembers(ctx, live)) this.unknownLive.add(name);
    this.units = units;
    const count = this.units.length;
    this.unitOrders = new Array(count);
    this.winnerPos = new Int32Array(count).fill(NO_WINNER);
    this.winnerId = new Int32Array(count).fill(NO_WINNER);
    this.isBGP = new Uint8Array(count);
    this.indexPositions();
    for (let u = 0; u < count; u++) if (this.isBGP[u] === 0) this.setWinner(u, this.scanWinner(u, 0));
    return this.outcomes();
  }

  /** Fills isBGP and every node's positions: the matrix columns, and the local lists (counted, then filled). */
  private indexPositions(): void {
    const nodeCount = this.context.nodeNames.length;
    const count = this.units.length;
    this.column = new Int32Array(count).fill(NO_COLUMN);
    const start = new Int32Array(nodeCount + 1);
    let columns = 0;
    for (let u = 0; u < count; u++) {
      const unit = this.units[u] as ElectionUnit;
      if (unit.protocol === 'bgp') {
        this.isBGP[u] = 1;
        continue;
      }
      const { order } = this.orderOf(u);
      if (!unit.localPolicy) this.column[u] = columns++;
      else for (const id of order) start[id + 1] = (start[id + 1] as number) + 1;
    }
    for (let id = 0; id < nodeCount; id++) start[id + 1] = (start[id + 1] as number) + (start[id] as number);
    const next = start.slice(0, nodeCount);
    this.localStart = start;
    this.localUnits = new Int32Array(start[nodeCount] as number);
    this.localPositions = new Int32Array(start[nodeCount] as number);
    this.positions = this.context.nodeNames.map(() => newPositionRow(columns, nodeCount));
    for (let u = 0; u < count; u++) {
      if (this.isBGP[u] === 1) continue;
      const { order } = this.orderOf(u);
      const column = this.column[u] as number;
      for (let i = 0; i < order.length; i++) {
        const id = order[i] as number;
        if (column !== NO_COLUMN) (this.positions[id] as NodeIndexArray)[column] = i;
        else {
          const k = next[id] as number;
          next[id] = k + 1;
          this.localUnits[k] = u;
          this.localPositions[k] = i;
        }
      }
    }
  }

  /** The current outcome of every unit, in election order. */
  outcomes(): ElectionOutcome[] {
    return this.units.map((unit, u) => this.outcomeAt(u, unit));
  }

  /** Live members as the index sees them (undefined: memberlist disabled, every Node live). */
  liveMembers(): LiveMembers {
    if (this.allLive) return undefined;
    const out = new Set<string>(this.unknownLive);
    this.context.nodeNames.forEach((name, id) => {
      if (this.live[id]) out.add(name);
    });
    return out;
  }

  /**
   * Applies one join or leave and returns the service IPs whose outcome changed. Only units the change can
   * affect are touched; a member without a Node object changes no outcome (it can never be a candidate).
   */
  applyMembership(change: MembershipChange): ElectionChange[] {
    const ctx = this.context;
    if (this.allLive) {
      // The first membership event turns "memberlist disabled" into an explicit set of every Node.
      this.allLive = false;
      this.live.fill(1);
    }
    const id = ctx.nodeIds.get(change.node);
    if (id === undefined) {
      if (change.kind === 'join') this.unknownLive.add(change.node);
      else this.unknownLive.delete(change.node);
      return [];
    }
    const nowLive = change.kind === 'join' ? 1 : 0;
    if (this.live[id] === nowLive) return [];
    this.live[id] = nowLive;
    const name = change.node;
    const changes: ElectionChange[] = [];
    const row = this.positions[id] as NodeIndexArray;
    const absent = absentFor(ctx.nodeNames.length);
    // The node's local list, walked alongside the units (both ascend).
    let local = this.localStart[id] as number;
    const localEnd = this.localStart[id + 1] as number;
    for (let u = 0; u < this.units.length; u++) {
      if (this.isBGP[u] === 1) {
        const unit = this.units[u] as ElectionUnit;
        if (ctx.nodeCode(unit, id, true) !== ReasonCode.eligible) continue;
        pushChanges(changes, unit, null, null, nowLive ? [name] : [], nowLive ? [] : [name]);
        continue;
      }
      const pos = this.winnerPos[u] as number;
      const before = this.winnerId[u] as number;
      if (nowLive) {
        const column = this.column[u] as number;
        let mine = absent;
        if (column !== NO_COLUMN) mine = row[column] as number;
        else {
          while (local < localEnd && (this.localUnits[local] as number) < u) local++;
          if (local < localEnd && this.localUnits[local] === u) mine = this.localPositions[local] as number;
        }
        if (mine === absent || (pos !== NO_WINNER && mine > pos)) continue;
        if (ctx.nodeCode(this.units[u] as ElectionUnit, id, true) !== ReasonCode.eligible) continue;
        this.setWinner(u, mine);
      } else {
        if (before !== id) continue;
        this.setWinner(u, this.scanWinner(u, pos + 1));
      }
      const afterId = this.winnerId[u] as number;
      const after = afterId === NO_WINNER ? null : (ctx.nodeNames[afterId] as string);
      const beforeName = before === NO_WINNER ? null : (ctx.nodeNames[before] as string);
      pushChanges(
        changes,
        this.units[u] as ElectionUnit,
        after,
        beforeName,
        after === null ? [] : [after],
        beforeName === null ? [] : [beforeName],
      );
    }
    return changes;
  }

  /**
   * Explanations of every unit, or of those whose service ("ns/name") or an IP (canonical text) equals one
   * of `queries`.
   */
  explain(queries?: readonly string[]): Explanation[] {
    const wanted = queries && new Set(queries);
    const out: Explanation[] = [];
    for (let u = 0; u < this.units.length; u++) {
      const unit = this.units[u] as ElectionUnit;
      if (wanted && !wanted.has(unit.service) && !unit.ipTexts.some((ip) => wanted.has(ip))) continue;
      out.push(...this.explainAt(u, unit));
    }
    return out;
  }

  private explainAt(u: number, unit: ElectionUnit): Explanation[] {
    const ctx = this.context;
    const { order } = this.orderOf(u);
    const codes = new Uint8Array(ctx.nodeNames.length);
    const ineligible: NodeReason[] = [];
    for (let id = 0; id < codes.length; id++) {
      const code = ctx.nodeCode(unit, id, this.live[id] === 1);
      codes[id] = code;
      if (code !== ReasonCode.eligible) ineligible.push({ node: ctx.nodeNames[id] as string, reason: reasonOfCode(code) });
    }
    const eligible: string[] = [];
    for (let i = 0; i < order.length; i++) {
      const id = order[i] as number;
      if (codes[id] === ReasonCode.eligible) eligible.push(ctx.nodeNames[id] as string);
    }
    for (const node of this.unknownLive) {
      ineligible.push({ node, reason: reasonOfCode(ctx.unknownMemberCode(unit, node)) });
    }
    ineligible.sort((a, b) => compareNames(a.node, b.node));
    return explainUnit(ctx, unit, eligible, ineligible);
  }

  private outcomeAt(u: number, unit: ElectionUnit): ElectionOutcome {
    const ctx = this.context;
    if (unit.protocol === 'layer2') {
      const id = this.winnerId[u] as number;
      return outcomeOf(unit, id === NO_WINNER ? [] : [ctx.nodeNames[id] as string]);
    }
    const announcing: string[] = [];
    for (let id = 0; id < ctx.nodeNames.length; id++) {
      if (ctx.nodeCode(unit, id, this.live[id] === 1) === ReasonCode.eligible) announcing.push(ctx.nodeNames[id] as string);
    }
    return outcomeOf(unit, announcing);
  }

  private setWinner(u: number, pos: number): void {
    this.winnerPos[u] = pos;
    this.winnerId[u] = pos === NO_WINNER ? NO_WINNER : (this.orderOf(u).order[pos] as number);
  }

  /** The first eligible live node at or after position `from` in the unit's hash order. */
  private scanWinner(u: number, from: number): number {
    const ctx = this.context;
    const unit = this.units[u] as ElectionUnit;
    const { order } = this.orderOf(u);
    for (let i = from; i < order.length; i++) {
      const id = order[i] as number;
      if (this.live[id] === 1 && ctx.nodeCode(unit, id, true) === ReasonCode.eligible) return i;
    }
    return NO_WINNER;
  }

  private orderOf(u: number): HashOrder {
    let order = this.unitOrders[u];
    if (order) return order;
    const unit = this.units[u] as ElectionUnit;
    if (unit.localPolicy) {
      order = this.localOrder(unit);
      this.unitOrders[u] = order;
      return order;
    }
    order = this.orders.get(unit.hashText);
    if (!order) {
      order = { order: hashOrderIndices(this.context.nodeNames, unit.hashText) };
      this.orders.set(unit.hashText, order);
    }
    this.unitOrders[u] = order;
    return order;
  }

  private localOrder(unit: ElectionUnit): HashOrder {
    const ids: number[] = [];
    for (const name of unit.endpoints.servingNodes) {
      const id = this.context.nodeIds.get(name);
      if (id !== undefined) ids.push(id);
    }
    const names = ids.map((id) => this.context.nodeNames[id] as string);
    const sorted = hashOrderIndices(names, unit.hashText);
    const order = newIndexArray(sorted.length);
    for (let i = 0; i < sorted.length; i++) order[i] = ids[sorted[i] as number] as number;
    return { order };
  }
}

function pushChanges(
  changes: ElectionChange[],
  unit: ElectionUnit,
  winner: string | null,
  previousWinner: string | null,
  added: readonly string[],
  removed: readonly string[],
): void {
  for (const ip of unit.ipTexts) {
    changes.push({ service: unit.service, ip, protocol: unit.protocol, winner, previousWinner, added, removed });
  }
}
