/** Reading this namespace's interfaces for a probe (src/announce/l2/arping/host-interfaces.ts). */
import { describe, expect, it } from 'vitest';
import { readHostInterfaces } from '../../../../src/announce/l2/arping/host-interfaces';

describe('readHostInterfaces', () => {
  it('reads this namespace: loopback has no MAC, every address has a prefix, names are sorted', () => {
    const all = readHostInterfaces();
    const loopback = all.find((i) => i.name === 'lo');
    if (loopback) expect(loopback.mac).toBeUndefined();
    for (const i of all) for (const a of i.addresses) expect(Number.isInteger(a.prefix)).toBe(true);
    expect(all.map((i) => i.name)).toEqual([...all.map((i) => i.name)].sort());
  });
});
