// A reloaded file is parsed into new objects; the interner hands on the previous ones for everything the edit did
// not change, so the daemon's later steps see one changed service, not a whole new configuration.
import { describe, expect, it } from 'vitest';
import { SnapshotInterner } from '../../src/daemon/snapshot-interning';
import { configSnapshot } from './config-facts/config-yaml';

describe('SnapshotInterner', () => {
  it('keeps every unchanged object across a reload that inserts a service above them (their positions moved)', () => {
    const interner = new SnapshotInterner();
    const first = interner.intern(configSnapshot(['web', 'db', 'api']));
    const edited = configSnapshot(['new', 'web', 'db', 'api'], { comment: 'moved every line down' });
    const web = (list: typeof first.services) => list.find((s) => s.meta.name === 'web')!;
    expect(web(edited.services).meta.position).not.toEqual(web(first.services).meta.position);

    const second = interner.intern(edited);
    const named = (list: typeof first.services, name: string) => list.find((s) => s.meta.name === name);
    expect(second.services.map((s) => s.meta.name).sort()).toEqual(['api', 'db', 'new', 'web']);
    expect(named(second.services, 'new')).toBe(named(edited.services, 'new'));
    for (const name of ['web', 'db', 'api']) expect(named(second.services, name)).toBe(named(first.services, name));
    expect(second.pools).toBe(first.pools);
    expect(second.l2Advertisements).toBe(first.l2Advertisements);
  });

  it('hands on a changed service as parsed, and the previous snapshot itself when nothing changed', () => {
    const interner = new SnapshotInterner();
    const first = interner.intern(configSnapshot(['web', 'db']));
    expect(interner.intern(configSnapshot(['web', 'db'], { comment: 'only a comment' }))).toBe(first);

    const removed = interner.intern(configSnapshot(['web']));
    expect(removed).not.toBe(first);
    expect(removed.services).toEqual([first.services.find((s) => s.meta.name === 'web')]);
    expect(removed.services[0]).toBe(first.services.find((s) => s.meta.name === 'web'));
    expect(interner.intern(configSnapshot(['web'], { pool: false })).pools).toEqual([]);
  });

  it('hands back the interned snapshot for the same input without comparing it again (a recomputation after a reload)', () => {
    const interner = new SnapshotInterner();
    const first = interner.intern(configSnapshot(['web', 'db', 'api']));
    const edited = configSnapshot(['new', 'web', 'db', 'api']);
    const reads = { count: 0 };
    const watched = { ...edited, services: new Proxy(edited.services, { get: (t, k, r) => (reads.count++, Reflect.get(t, k, r)) }) };
    const interned = interner.intern(watched);
    expect(interned).not.toBe(first);
    const readsByReload = reads.count;
    expect(readsByReload).toBeGreaterThan(0);

    // A member joins: the speaker interns the source's snapshot again, the very object it interned before.
    expect(interner.intern(watched)).toBe(interned);
    expect(reads.count).toBe(readsByReload);
  });
});
