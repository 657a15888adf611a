/**
 * core/v1 Events as client-go's record package writes them (tools/record/events_cache.go), which is what
 * MetalLB's controller uses: the first occurrence is a new Event named "<object>.<unix nanos in hex>" with
 * count 1; the same event again (same object, type, reason, message, source) within the window is a PATCH of
 * that Event's count and lastTimestamp, never a new object, so `kubectl describe` shows "(x5 over 3m)". And
 * client-go's spam filter (EventSourceObjectSpamFilter): per source and object a burst of events, then one per
 * refill period, the rest dropped, so a reconcile that fails on every pass cannot write without bound. Pure:
 * the time is passed in.
 */
import type { ApiService } from './api-objects';
import type { ControllerEvent } from './controller-events';

/** client-go's correlator window: an identical event within 10 minutes is a repeat, counted on the first. */
const REPEAT_WINDOW_MS = 10 * 60 * 1000;
/** Events remembered at most (client-go's LRU holds 4096); the oldest are forgotten first. */
const MAX_REMEMBERED = 4096;
const NANOS_PER_MS = 1_000_000n;
/**
 * client-go's spam filter defaults (defaultSpamBurst, defaultSpamQPS = 1/300): 25 events per source and object at
 * once, then one more every 5 minutes. A failing service is reported on every reconcile pass (as MetalLB does),
 * and passes can follow each other quickly (each status write is a watch event); this caps what that costs the
 * API server and etcd per service.
 */
export const EVENT_SPAM_BURST = 25;
export const EVENT_SPAM_REFILL_MS = 5 * 60 * 1000;

export interface EventIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastAt: number;
}

export type EventAction =
  | { readonly kind: 'create'; readonly namespace: string; readonly body: Record<string, unknown> }
  | { readonly kind: 'patch'; readonly namespace: string; readonly name: string; readonly body: Record<string, unknown> }
  /** Over the spam filter's budget for this object: nothing is sent. */
  | { readonly kind: 'drop' };

/** Tokens left for one source and object, as of `at`. */
interface SpamBucket {
  readonly tokens: number;
  readonly at: number;
}

export interface EventMemory {
  /** The Events sent, by identity (the correlator's cache). */
  readonly events: ReadonlyMap<string, EventIdentity>;
  /** The spam filter's budget, by source and object. */
  readonly buckets: ReadonlyMap<string, SpamBucket>;
}

export const EMPTY_EVENT_MEMORY: EventMemory = { events: new Map(), buckets: new Map() };

/**
 * The same memory, owned by one writer that updates it in place: the controller emits an event for each of
 * thousands of services in one pass, and copying a memory of up to MAX_REMEMBERED entries per event made that
 * pass quadratic (10,000 services: 80 million entries copied).
 */
export interface OwnedEventMemory {
  readonly events: Map<string, EventIdentity>;
  readonly buckets: Map<string, SpamBucket>;
}

export function newEventMemory(): OwnedEventMemory {
  return { events: new Map(), buckets: new Map() };
}

function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function keyOf(service: ApiService, event: ControllerEvent, component: string): string {
  const m = service.metadata;
  return JSON.stringify([component, 'Service', m.namespace, m.name, m.uid, event.type, event.reason, event.message]);
}

/** What to send for one event now, and the memory after it (`memory` itself is left as it was). */
export function correlateEvent(
  memory: EventMemory,
  service: ApiService,
  event: ControllerEvent,
  component: string,
  nowMs: number,
): { action: EventAction; memory: EventMemory } {
  const next: OwnedEventMemory = { events: new Map(memory.events), buckets: new Map(memory.buckets) };
  return { action: recordEvent(next, service, event, component, nowMs), memory: next };
}

/** What to send for one event now; `memory` is updated to remember it (deterministic: the time is passed in). */
export function recordEvent(
  memory: OwnedEventMemory,
  service: ApiService,
  event: ControllerEvent,
  component: string,
  nowMs: number,
): EventAction {
  if (!spendToken(memory.buckets, spamKeyOf(service, component), nowMs)) return { kind: 'drop' };
  return correlated(memory.events, service, event, component, nowMs);
}

/** The token bucket of one source and object: refilled for the time since, then one token spent if there is one. */
function spendToken(buckets: Map<string, SpamBucket>, key: string, nowMs: number): boolean {
  const before = buckets.get(key);
  const refilled = before === undefined ? EVENT_SPAM_BURST : before.tokens + (nowMs - before.at) / EVENT_SPAM_REFILL_MS;
  const tokens = Math.min(EVENT_SPAM_BURST, refilled);
  const allowed = tokens >= 1;
  buckets.delete(key);
  buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, at: nowMs });
  forgetOldest(buckets);
  return allowed;
}

function spamKeyOf(service: ApiService, component: string): string {
  const m = service.metadata;
  return JSON.stringify([component, 'Service', m.namespace, m.name, m.uid]);
}

function forgetOldest(map: Map<string, unknown>): void {
  while (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value as string);
}

function correlated(
  events: Map<string, EventIdentity>,
  service: ApiService,
  event: ControllerEvent,
  component: string,
  nowMs: number,
): EventAction {
  const key = keyOf(service, event, component);
  const namespace = service.metadata.namespace ?? '';
  const now = rfc3339(nowMs);
  const seen = events.get(key);
  if (seen !== undefined && nowMs - seen.lastAt <= REPEAT_WINDOW_MS) {
    const count = seen.count + 1;
    events.delete(key);
    events.set(key, { ...seen, count, lastAt: nowMs });
    return { kind: 'patch', namespace, name: seen.name, body: { count, lastTimestamp: now, message: event.message } };
  }
  const name = `${service.metadata.name ?? ''}.${(BigInt(nowMs) * NANOS_PER_MS).toString(16)}`;
  events.delete(key);
  events.set(key, { name, namespace, count: 1, firstTimestamp: now, lastAt: nowMs });
  forgetOldest(events);
  const m = service.metadata;
  const body = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: { kind: 'Service', namespace, name: m.name, uid: m.uid, apiVersion: 'v1', resourceVersion: m.resourceVersion },
    reason: event.reason,
    message: event.message,
    type: event.type,
    source: { component },
    reportingComponent: component,
    reportingInstance: '',
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
  return { kind: 'create', namespace, body };
}
