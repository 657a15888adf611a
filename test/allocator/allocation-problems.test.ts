/**
 * allocationProblems: each service of a file that gets no address becomes an error at the field to change, with
 * MetalLB's text and mlb's hint. The common cases run through `mlb validate` in test/cli/validate-services.test.ts;
 * these are the rarer reasons.
 */
import { describe, expect, it } from 'vitest';
import { allocationProblems } from '../../src/allocator';
import { formatDiagnostic } from '../../src/model';
import { parseOk } from '../model/parse-helpers';

const pool = (name: string, addresses: string, extra = '') =>
  `apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: { name: ${name} }\nspec:\n  addresses: [${addresses}]\n${extra}---\n`;
const service = (name: string, annotations: string, spec = '') =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  annotations: { ${annotations} }\nspec:\n  type: LoadBalancer\n  ports: [{ port: 80 }]\n${spec}---\n`;

function problems(text: string): string[] {
  return allocationProblems(parseOk(text)).map(formatDiagnostic);
}

describe('allocationProblems', () => {
  it('explains an address an avoidBuggyIPs pool leaves out', () => {
    expect(
      problems(
        pool('lan', '192.168.10.0/24', '  avoidBuggyIPs: true\n') + service('web', '"metallb.io/loadBalancerIPs": "192.168.10.255"'),
      ),
    ).toEqual([
      'test.yaml:12:48: error: service default/web gets no IP: ["192.168.10.255"] is not allowed in config (pool "lan" has avoidBuggyIPs: true, which leaves out addresses ending in .0 and .255)',
    ]);
  });

  it('names the pool that holds a requested address when the annotation names another', () => {
    const text =
      pool('a', '192.168.10.0/28') +
      pool('b', '192.168.20.0/28') +
      service('web', '"metallb.io/loadBalancerIPs": "192.168.20.1", "metallb.io/address-pool": "a"');
    expect(problems(text)).toEqual([
      'test.yaml:17:91: error: service default/web gets no IP: requested loadBalancer IP(s) ["192.168.20.1"] is not compatible with requested address pool a (the address is in pool "b": name that pool, or remove metallb.io/address-pool)',
    ]);
  });

  it('says a named pool is full, at its annotation', () => {
    const text =
      pool('tiny', '192.168.10.1/32') +
      service('a', '"metallb.io/address-pool": "tiny"') +
      service('b', '"metallb.io/address-pool": "tiny"');
    expect(problems(text)).toEqual([
      'test.yaml:20:45: error: service default/b gets no IP: no available IPs in pool tiny (every address of the pool is taken: add addresses to it, or share one with metallb.io/allow-shared-ip)',
    ]);
  });

  it('asks for PreferDualStack when SingleStack is written with one address of each family', () => {
    const text =
      pool('lan', '192.168.10.0/28, "2001:db8::/120"') +
      service('web', '"metallb.io/loadBalancerIPs": "192.168.10.1,2001:db8::1"', '  ipFamilyPolicy: SingleStack\n');
    expect(problems(text)).toEqual([
      'test.yaml:15:19: error: service default/web gets no IP: requested loadBalancer IP(s) ["192.168.10.1" "2001:db8::1"] does not match the ipFamily of the service (add spec.ipFamilyPolicy: PreferDualStack and spec.ipFamilies: [IPv4, IPv6])',
    ]);
  });

  it('asks for a pool when there is none, and reports nothing for a file whose services all get one', () => {
    expect(problems(service('web', ''))).toEqual([
      'test.yaml:7:9: error: service default/web gets no IP: no IPAddressPool is configured (add an IPAddressPool)',
    ]);
    expect(problems(pool('lan', '192.168.10.0/28') + service('web', ''))).toEqual([]);
  });
});
