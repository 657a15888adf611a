import { describe, expect, it } from 'vitest';
import type { ApiService } from '../../src/controller/api-objects';
import {
  EMPTY_EVENT_MEMORY,
  EVENT_SPAM_BURST,
  EVENT_SPAM_REFILL_MS,
  correlateEvent,
  type EventMemory,
} from '../../src/controller/event-correlator';

const service = (name: string): ApiService =>
  ({ metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' } }) as unknown as ApiService;
const failure = {
  type: 'Warning',
  reason: 'AllocationFailed',
  message: 'Failed to allocate IP for "default/x": no available IPs',
} as const;
const T0 = Date.UTC(2026, 11, 2);

/** Sends `event` for `name` `times` times at `at`; returns the kinds of what would be written. */
function send(memory: EventMemory, name: string, times: number, at: number): { kinds: string[]; memory: EventMemory } {
  const kinds: string[] = [];
  let m = memory;
  for (let i = 0; i < times; i++) {
    const r = correlateEvent(m, service(name), failure, 'metallb-controller', at);
    kinds.push(r.action.kind);
    m = r.memory;
  }
  return { kinds, memory: m };
}

describe('Events of a reconcile that fails on every pass', () => {
  it("are one Event counted up, then bounded per service by client-go's spam filter (burst, then one per 5 minutes)", () => {
    const hot = send(EMPTY_EVENT_MEMORY, 'x', EVENT_SPAM_BURST + 10, T0);
    expect(hot.kinds).toEqual(['create', ...Array(EVENT_SPAM_BURST - 1).fill('patch'), ...Array(10).fill('drop')]);
    // Another service has its own budget.
    expect(send(hot.memory, 'y', 1, T0).kinds).toEqual(['create']);
    // One more per refill period (still the same Event: within the ten-minute window).
    expect(send(hot.memory, 'x', 2, T0 + EVENT_SPAM_REFILL_MS).kinds).toEqual(['patch', 'drop']);
  });
});
