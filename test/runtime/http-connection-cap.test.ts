/** Which connection a new one displaces at the cap: the oldest idle one, and nobody while all are busy. */
import { describe, expect, it } from 'vitest';
import { admitConnection } from '../../src/runtime/http-connection-cap';

describe('admitConnection', () => {
  it('admits under the cap without closing anything', () => {
    expect(admitConnection([{ id: 1, openedAt: 0, activeRequests: 0 }], 2)).toEqual({ admit: true, reason: 'underCap' });
  });

  it('closes the oldest idle connection at the cap, never a busy one', () => {
    const open = [
      { id: 1, openedAt: 10, activeRequests: 1 },
      { id: 2, openedAt: 30, activeRequests: 0 },
      { id: 3, openedAt: 20, activeRequests: 0 },
    ];
    expect(admitConnection(open, 3)).toEqual({ admit: true, reason: 'evictedIdle', evict: 3 });
  });

  it('refuses the new connection when every open one is answering a request', () => {
    const open = [
      { id: 1, openedAt: 10, activeRequests: 1 },
      { id: 2, openedAt: 20, activeRequests: 2 },
    ];
    expect(admitConnection(open, 2)).toEqual({ admit: false, reason: 'allBusy' });
  });
});
