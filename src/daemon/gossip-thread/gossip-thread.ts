/**
 * The gossip thread's whole life (threaded-gossip.ts starts it): a GossipNode on the real runtime, its events,
 * replies and log lines posted to the main thread with the membership view, the main thread's commands applied.
 * Nothing the main thread does (a decision over 10,000 services, binding thousands of addresses) can then delay
 * an ack: the failure detector answers from here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Keyring } from '../../gossip/codec';
import { GossipNode, type GossipNodeEvents } from '../../gossip/gossip-node';
import type { Member } from '../../gossip/swim';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Log } from '../../runtime/log';
import type { Timer } from '../../runtime/runtime';
import { errorCode } from '../start-failure';
import type { FromGossipThread, GossipThreadInput, GossipThreadOptions, GossipView, ToGossipThread } from './gossip-thread-messages';

/**
 * How long after the node's activity the view goes to the main thread when no event carried it and it changed:
 * when each member was last heard from and the counters move without events. Its age is what a decision may read
 * stale; the detector itself is not slowed. Armed by activity, not kept running: a lone node's thread sleeps.
 */
const VIEW_REFRESH_MS = 100;

const EVENT_NAMES: readonly (keyof GossipNodeEvents)[] = ['join', 'leave', 'update', 'suspicion', 'conflict', 'userMessage', 'remoteState'];

export function runGossipThread(): void {
  const port = parentPort;
  if (!port) return;
  const { options, debug } = workerData as GossipThreadInput;
  if (options) {
    startNode(port, options, debug);
    return;
  }
  // Started ahead of its options (WarmGossipThread): they are the first message.
  port.once('message', (first: ToGossipThread) => {
    if (first.op === 'start') startNode(port, first.options, first.debug);
  });
}

function startNode(port: NonNullable<typeof parentPort>, options: GossipThreadOptions, debug: boolean): void {
  const post = (message: FromGossipThread): void => port.postMessage(message);
  const line =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (fields: object, msg?: string): void =>
      post({ kind: 'log', level, fields, ...(msg === undefined ? {} : { msg }) });
  const log: Log = { debug: debug ? line('debug') : () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
  const [primary, ...others] = options.keys ?? [];
  const refresher = new ViewRefresher(post);
  void GossipNode.create({
    name: options.name,
    bind: options.bind,
    ...(options.advertiseHost ? { advertiseHost: options.advertiseHost } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(primary ? { keyring: Keyring.create(primary, others) } : {}),
    ...(options.meta ? { meta: options.meta } : {}),
    runtime: REAL_RUNTIME,
    log,
    onActivity: () => refresher.soon(),
  }).then(
    (node) => serve(node, post, port, refresher),
    (error: Error) => {
      const code = errorCode(error); // EADDRINUSE: the start failure names it
      post({ kind: 'failed', message: error.message, ...(code === undefined ? {} : { code }) });
    },
  );
}

/**
 * The view sent VIEW_REFRESH_MS after activity, and only when it says something new: a quiet cluster between
 * gossip rounds would otherwise cross the thread to say the same (a clone, a message and a handler on the main
 * thread), and a node with nothing to do would wake for it ten times a second.
 */
class ViewRefresher {
  private node: GossipNode | undefined;
  private timer: Timer | undefined;
  private last: GossipView | undefined;
  private stopped = false;

  constructor(private readonly post: (message: FromGossipThread) => void) {}

  /** Starts refreshing `node`'s view, from now (the node was created before it could be handed in). */
  start(node: GossipNode): void {
    this.node = node;
    this.soon();
  }

  soon(): void {
    if (this.timer || this.stopped || !this.node) return;
    this.timer = REAL_RUNTIME.after(VIEW_REFRESH_MS, () => {
      this.timer = undefined;
      if (this.node) this.send(viewOf(this.node));
    });
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private send(view: GossipView): void {
    if (this.last && sameView(view, this.last)) return;
    this.last = view;
    this.post({ kind: 'view', view });
  }
}

function serve(
  node: GossipNode,
  post: (message: FromGossipThread) => void,
  port: NonNullable<typeof parentPort>,
  refresher: ViewRefresher,
): void {
  for (const name of EVENT_NAMES) {
    node.on(name, (...args: unknown[]) => post({ kind: 'event', event: { name, args } as never, view: viewOf(node) }));
  }
  refresher.start(node);
  port.on('message', (command: ToGossipThread) => {
    switch (command.op) {
      case 'join':
        void node.join(command.addresses).then((result) => post({ kind: 'joined', id: command.id, result }));
        return;
      case 'leave':
        void node.leave(command.timeoutMs).then((outcome) => post({ kind: 'left', id: command.id, outcome }));
        return;
      case 'setMeta':
        node.setMeta(command.meta);
        return;
      case 'start': // only ever the first message, taken before the node existed
        return;
      case 'broadcast':
        node.broadcast(command.payload, command.key);
        return;
      case 'setLocalState':
        node.setLocalState(command.userState);
        return;
      case 'close':
        refresher.stop();
        void node.close().then(() => {
          post({ kind: 'view', view: viewOf(node) });
          post({ kind: 'closed', id: command.id });
          port.close();
        });
        return;
    }
  });
  post({ kind: 'ready', localAddress: node.localAddress, view: viewOf(node) });
}

/** The members in the last view sent: the next carries them again only when one changed. */
let sentMembers: readonly Member[] | undefined;

function viewOf(node: GossipNode): GossipView {
  const members = node.members();
  const lastHeard: [string, number][] = [];
  for (const m of members) {
    const at = node.lastHeardFrom(m.name);
    if (at !== undefined) lastHeard.push([m.name, at]);
  }
  const unchanged = sentMembers !== undefined && sentMembers.length === members.length && members.every((m, i) => m === sentMembers?.[i]);
  sentMembers = members;
  return {
    ...(unchanged ? {} : { members, live: node.liveMembers() }),
    confirmedSuspects: [...node.confirmedSuspects()],
    lastHeard,
    health: node.healthScore(),
    // drops copied too: the node counts into its own object, which the last view sent must not share.
    counters: { ...node.counters, drops: { ...node.counters.drops } },
  };
}

/** Whether `next` says nothing `last` did not: no member changed, and every pair, counter and score is equal. */
function sameView(next: GossipView, last: GossipView): boolean {
  if (next.members !== undefined || next.health !== last.health) return false;
  if (!samePairs(next.lastHeard, last.lastHeard) || !samePairs(next.confirmedSuspects, last.confirmedSuspects)) return false;
  const a = next.counters;
  const b = last.counters;
  const dropsA = Object.entries(a.drops);
  return (
    a.packetsReceived === b.packetsReceived &&
    a.packetsSent === b.packetsSent &&
    a.bytesReceived === b.bytesReceived &&
    a.bytesSent === b.bytesSent &&
    a.streamsAccepted === b.streamsAccepted &&
    a.streamsOpened === b.streamsOpened &&
    a.streamFailures === b.streamFailures &&
    dropsA.length === Object.keys(b.drops).length &&
    dropsA.every(([reason, n]) => b.drops[reason] === n)
  );
}

function samePairs(a: readonly (readonly [string, number])[], b: readonly (readonly [string, number])[]): boolean {
  return a.length === b.length && a.every(([k, v], i) => b[i]?.[0] === k && b[i]?.[1] === v);
}
