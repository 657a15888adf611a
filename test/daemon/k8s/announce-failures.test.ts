import { describe, expect, it } from 'vitest';
import { announceFailedEvent, failedAnnouncements } from '../../../src/daemon/k8s/announce-failures';
import { parseIP } from '../../../src/ip';

const owned = (interfaces: string[]) => [{ service: 'default/web', ip: parseIP('192.0.2.5')!, interfaces }];

describe('announceFailed: the owner cannot answer on the interfaces its advertisement names', () => {
  it('fails an IP whose advertisement names interfaces and that the node answers on none of them', () => {
    expect(failedAnnouncements(owned(['eth9']), [{ ip: '192.0.2.5', interfaces: [] }])).toEqual([
      { service: 'default/web', ip: '192.0.2.5' },
    ]);
  });

  it('does not fail an IP answered on one of the named interfaces', () => {
    expect(failedAnnouncements(owned(['eth0', 'eth9']), [{ ip: '192.0.2.5', interfaces: ['eth0'] }])).toEqual([]);
  });

  it('does not fail an unrestricted advertisement (MetalLB: every interface matches), nor an IP not looked at', () => {
    expect(failedAnnouncements(owned([]), [{ ip: '192.0.2.5', interfaces: [] }])).toEqual([]);
    expect(failedAnnouncements(owned(['eth9']), [])).toEqual([]);
  });

  it("words the event as MetalLB's speaker does", () => {
    expect(announceFailedEvent({ service: 'default/web', ip: '2001:db8::5' }, 'node-a')).toEqual({
      service: 'default/web',
      type: 'Warning',
      reason: 'announceFailed',
      message: 'the interfaces specified by LB IP "2001:db8::5" doesn\'t exist in assigned node "node-a" with protocol "layer2"',
    });
  });
});
