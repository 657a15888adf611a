import { describe, expect, it } from 'vitest';
import { errnoOf, VipBindError, vipBindErrorFrom } from '../../../src/announce/addr/vip-bind-error';

describe('VipBindError', () => {
  it("reads the errno from the netlink package's rejection message and from node's fs errors", () => {
    expect(errnoOf(new Error('Request rejected: EEXIST'))).toBe('EEXIST');
    expect(errnoOf(Object.assign(new Error('open failed'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(errnoOf(new Error('something else'))).toBeUndefined();
  });

  it('says permissionDenied for EPERM, keeps the operation for a netlink EACCES (disable_ipv6), and names the subject', () => {
    const denied = vipBindErrorFrom(
      'addressAddFailed',
      'cannot add 10.0.0.1/32 to mlb0',
      new Error('Request rejected: EPERM'),
      '10.0.0.1/32',
    );
    expect(denied).toMatchObject({
      code: 'permissionDenied',
      errno: 'EPERM',
      subject: '10.0.0.1/32',
      message: 'cannot add 10.0.0.1/32 to mlb0: EPERM',
    });
    expect(vipBindErrorFrom('addressAddFailed', 'x', new Error('Request rejected: EACCES')).code).toBe('addressAddFailed');
    expect(vipBindErrorFrom('sysctlWriteFailed', 'x', Object.assign(new Error('no'), { code: 'EACCES' })).code).toBe('permissionDenied');
    const original = new VipBindError('closed', 'closed');
    expect(vipBindErrorFrom('linkFailed', 'x', original)).toBe(original);
  });
});
