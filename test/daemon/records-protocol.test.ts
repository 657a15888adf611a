import { describe, expect, it } from 'vitest';
import { MLB_RECORDS_VERSION, recordsVersionInUse, releaseText, UNVERSIONED_RECORDS_VERSION } from '../../src/daemon/records-protocol';
import type { NodeMeta } from '../../src/gossip/node-meta';

const meta = (recordsVersion?: number): NodeMeta => ({
  labels: {},
  conditions: [],
  draining: false,
  warmingUp: false,
  ...(recordsVersion === undefined ? {} : { recordsVersion }),
});

describe('mlb records protocol', () => {
  it('holds the cluster to the lowest version a live mlb member advertises, a node without one counting as the oldest', () => {
    expect(recordsVersionInUse([])).toBe(MLB_RECORDS_VERSION);
    expect(recordsVersionInUse([meta(MLB_RECORDS_VERSION), meta(MLB_RECORDS_VERSION)])).toBe(MLB_RECORDS_VERSION);
    expect(recordsVersionInUse([meta(MLB_RECORDS_VERSION), meta()])).toBe(UNVERSIONED_RECORDS_VERSION);
    // A newer peer does not raise what this node may send.
    expect(recordsVersionInUse([meta(MLB_RECORDS_VERSION + 1)])).toBe(MLB_RECORDS_VERSION);
  });

  it('names the commit in the release text when the build has one', () => {
    expect(releaseText({ version: '0.1.0', commit: '3651dac01ff7' })).toBe('0.1.0+3651dac01ff7');
    expect(releaseText({ version: '0.1.0', commit: 'dev' })).toBe('0.1.0+dev');
    expect(releaseText({ version: '0.1.0', commit: 'unbuilt (run from source)' })).toBe('0.1.0');
  });
});
