import { describe, expect, it } from 'vitest';
import { memberReleasesText } from '../../src/cli/member-releases-text';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';

type Member = ControlSnapshot['members'][number];
const member = (name: string, version: Member['version'], state: Member['state'] = 'alive'): Member => ({
  name,
  addr: '10.0.0.1:7946',
  state,
  mlb: version !== undefined,
  labels: {},
  draining: false,
  warmingUp: false,
  ...(version ? { version } : {}),
});
const snapshot = (members: Member[]) => ({ members }) as unknown as ControlSnapshot;

describe('status --once releases line', () => {
  it('says nothing while every live member runs one release (MetalLB speakers and dead members aside)', () => {
    expect(
      memberReleasesText(
        snapshot([
          member('a', { release: '0.2.0', records: 1 }),
          member('b', { release: '0.2.0', records: 1 }),
          member('metallb', undefined),
          member('gone', { release: null, records: 0 }, 'dead'),
        ]),
      ),
    ).toBeUndefined();
  });

  it('names who runs what mid-upgrade and the records version the cluster is held to', () => {
    expect(
      memberReleasesText(
        snapshot([
          member('b', { release: '0.2.0', records: 1 }),
          member('c', { release: null, records: 0 }),
          member('a', { release: '0.2.0', records: 1 }),
        ]),
      ),
    ).toBe('mixed: 0.2.0 (a, b); older (no version) (c); gossip records version 0 until all run one release');
  });
});
