/**
 * core/v1 Events as client-go's record package writes them (tools/record/events_cache.go), which is what
 * MetalLB's controller uses: the first occurrence is a new Event named "<object>.<unix nanos in hex>" with
 * count 1; the same event again (same object, type, reason, message, source) within the window is a PATCH of
 * that Event's count and lastTimestamp, never a new object, so `kubectl describe` shows "(x5 over 3m)". Pure:
 * the time is passed in.
 */
import type { ApiService } from './api-objects';
import type { ControllerEvent } from './controller-events';

/** client-go's correlator window: an identical event within 10 minutes is a repeat, counted on the first. */
const REPEAT_WINDOW_MS = 10 * 60 * 1000;
/** Events remembered at most (client-go's LRU holds 4096); the oldest are forgotten first. */
const MAX_REMEMBERED = 4096;
const NANOS_PER_MS = 1_000_000n;

export interface EventIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastAt: number;
}

export type EventAction =
  | { readonly kind: 'create'; readonly namespace: string; readonly body: Record<string, unknown> }
  | { readonly kind: 'patch'; readonly namespace: string; readonly name: string; readonly body: Record<string, unknown> };

export type EventMemory = ReadonlyMap<string, EventIdentity>;

function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function keyOf(service: ApiService, event: ControllerEvent, component: string): string {
  const m = service.metadata;
  return JSON.stringify([component, 'Service', m.namespace, m.name, m.uid, event.type, event.reason, event.message]);
}

/** What to send for one event now, and the memory after it. */
export function correlateEvent(
  memory: EventMemory,
  service: ApiService,
  event: ControllerEvent,
  component: string,
  nowMs: number,
): { action: EventAction; memory: EventMemory } {
  const key = keyOf(service, event, component);
  const namespace = service.metadata.namespace ?? '';
  const now = rfc3339(nowMs);
  const seen = memory.get(key);
  const next = new Map(memory);
  if (seen !== undefined && nowMs - seen.lastAt <= REPEAT_WINDOW_MS) {
    const count = seen.count + 1;
    next.delete(key);
    next.set(key, { ...seen, count, lastAt: nowMs });
    return {
      action: { kind: 'patch', namespace, name: seen.name, body: { count, lastTimestamp: now, message: event.message } },
      memory: next,
    };
  }
  const name = `${service.metadata.name ?? ''}.${(BigInt(nowMs) * NANOS_PER_MS).toString(16)}`;
  next.delete(key);
  next.set(key, { name, namespace, count: 1, firstTimestamp: now, lastAt: nowMs });
  while (next.size > MAX_REMEMBERED) next.delete(next.keys().next().value as string);
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
  return { action: { kind: 'create', namespace, body }, memory: next };
}
