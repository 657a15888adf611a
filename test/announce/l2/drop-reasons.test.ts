import { describe, expect, it } from 'vitest';
import { isL2DropReason, L2_DROP_REASONS, L2DropReason } from '../../../src/announce/l2';

describe('L2 drop reasons', () => {
  it('is append-only: these names keep their positions (metrics labels and dashboards depend on them)', () => {
    expect(L2_DROP_REASONS.slice(0, 22)).toEqual([
      'truncated',
      'unsupportedEtherType',
      'notArp',
      'badHardwareType',
      'badProtocolType',
      'badAddressLength',
      'unknownOperation',
      'notRequest',
      'notForUs',
      'notOwned',
      'fromSelf',
      'badSender',
      'badIpVersion',
      'notIcmpv6',
      'badChecksum',
      'badHopLimit',
      'badCode',
      'malformedOption',
      'multicastTarget',
      'noSourceLinkLayer',
      'dadProbe',
      'badDestination',
    ]);
  });

  it('maps each name to itself and recognises only its own names', () => {
    for (const r of L2_DROP_REASONS) expect(L2DropReason[r]).toBe(r);
    expect(isL2DropReason('notOwned')).toBe(true);
    expect(isL2DropReason('toString')).toBe(false);
  });
});
