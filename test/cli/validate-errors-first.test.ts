/**
 * `mlb validate` as an operator reads it: the error that refuses a file comes first, before warnings found
 * earlier in the file, and a tab or a stray "---" is one line of output, not a page of knock-on findings.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMlb } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'mlb-validate-first-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function validate(name: string, text: string): { status: number | null; findings: string[] } {
  const file = join(dir, name);
  writeFileSync(file, text);
  const run = runMlb(['validate', '--config', file]);
  return {
    status: run.status,
    findings: run.stdout
      .split('\n')
      .filter((l) => /: (error|warning): /.test(l))
      .map((l) => l.slice(dir.length + 1)),
  };
}

const pool = (name: string, address: string) =>
  `apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: ${name}\n  namespace: metallb-system\nspec:\n  addresses:\n    - ${address}\n`;
const ad =
  'apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: lan\n  namespace: metallb-system\nspec:\n  ipAddressPools:\n    - lan\n    - lan-typo\n';

describe('mlb validate', () => {
  it('prints the error before the warnings that stand above it in the file', () => {
    const { status, findings } = validate(
      'stale.yaml',
      `${pool('spare', '10.0.0.0/24')}---\n${ad}---\n${pool('lan', '192.168.10.0/24').replace('kind: IPAddressPool', 'kind: IPAdressPool')}`,
    );
    expect(status).toBe(1);
    expect(findings).toEqual([
      'stale.yaml:21:7: error: unknown kind "IPAdressPool" (did you mean "IPAddressPool"?)',
      'stale.yaml:4:9: warning: pool "spare" is not covered by any L2Advertisement or BGPAdvertisement: services get its addresses but nobody announces them',
      'stale.yaml:18:7: warning: L2Advertisement "lan" names pool "lan-typo", which does not exist; MetalLB ignores the name silently',
    ]);
  });

  it('reports a tab, or a "---" that cuts a pool in two, as one line', () => {
    const good = `${ad.replace('    - lan-typo\n', '')}---\n${pool('lan', '192.168.10.0/24')}`;
    expect(validate('tab.yaml', good.replace('    - 192', '\t- 192')).findings).toEqual([
      'tab.yaml:17:1: error: YAML syntax error: a tab indents line 17; YAML indents with spaces only: replace the tab with spaces',
    ]);
    const cut = validate(
      'cut.yaml',
      good.replace('  namespace: metallb-system\nspec:\n  addresses', '  namespace: metallb-system\n---\nspec:\n  addresses'),
    );
    expect(cut.status).toBe(1);
    expect(cut.findings).toEqual([
      expect.stringMatching(/^cut\.yaml:15:1: error: "---" on line 15 cuts IPAddressPool "lan" \(from line 10\) in two/),
    ]);
  });
});
