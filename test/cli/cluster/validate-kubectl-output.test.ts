/**
 * `mlb validate` on what `kubectl get ... -o yaml` / `-o json` prints: a v1 List whose items carry the server's
 * fields (status, resourceVersion, uid, managedFields, creationTimestamp, finalizers) validates without a
 * warning; several Lists in one file (YAML documents, or JSON values one after the other as two kubectl runs
 * append them) are one configuration, with diagnostics at the file's own lines; items of kinds mlb does not read
 * (Pods, ServiceL2Status) that came from a server are skipped with a note, not refused.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runMlbInProcess } from '../run-cli';

const FIXTURES = 'test/cli/fixtures/kubectl';

interface ValidateJSON {
  valid: boolean;
  errors: { code: string; message: string; line?: number }[];
  warnings: { code: string; message: string }[];
  notes: { code: string; message: string; line?: number }[];
  services: { service: string; status: string; ips?: string[]; pool?: string }[];
}

async function validateJSON(args: string[], stdin?: string): Promise<{ status: number | null; result: ValidateJSON }> {
  const run = await runMlbInProcess(['validate', ...args, '--json'], {}, stdin);
  return { status: run.status, result: JSON.parse(run.stdout) as ValidateJSON };
}

describe('mlb validate on kubectl output', () => {
  it('reads two kubectl -o yaml Lists with server fields as one configuration, without warnings', async () => {
    const { status, result } = await validateJSON([`${FIXTURES}/get-o-yaml.yaml`]);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.services).toEqual([
      expect.objectContaining({ service: 'demo/web', status: 'assigned', ips: ['192.168.10.1'], pool: 'default' }),
    ]);
    expect(status).toBe(0);
  });

  it('reads two kubectl -o json outputs appended to one file', async () => {
    const run = await runMlbInProcess(['validate', `${FIXTURES}/two-get-o-json.json`]);
    expect(run.stdout).toContain('valid (1 pools, 1 advertisements, 0 BGP peers, 1 services, 1 nodes; 0 warning(s))');
    expect(run.stdout).toMatch(/demo\/web\s+192\.168\.10\.1\s+default/);
    expect(run.status).toBe(0);
  });

  it('points at the line of the second JSON value that is wrong', async () => {
    const text = readFileSync(`${FIXTURES}/two-get-o-json.json`, 'utf8').replace('"192.168.10.0/24"', '"192.168.10.300/24"');
    const line = text.split('\n').findIndex((l) => l.includes('192.168.10.300/24')) + 1;
    const { status, result } = await validateJSON(['-'], text);
    expect(result.errors.map((e) => ({ code: e.code, line: e.line }))).toContainEqual({ code: 'invalidCIDR', line });
    expect(status).toBe(1);
  });

  it('skips server objects of kinds mlb does not read with a note, and still validates the rest', async () => {
    const { status, result } = await validateJSON([`${FIXTURES}/get-all-o-yaml.yaml`]);
    expect(result.errors).toEqual([]);
    expect(result.notes.filter((n) => n.code === 'skippedKind').map((n) => n.message)).toEqual([
      expect.stringMatching(/^skipped ServiceL2Status "l2-759gw": written by the speaker that announces a service/),
      expect.stringMatching(/^skipped Pod "web-5d8c7f-abcde": not configuration/),
    ]);
    expect(status).toBe(0);
  });

  it('still refuses a hand-written List item of an unknown kind (a typo), with its did-you-mean', async () => {
    const text = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: metallb.io/v1beta1\n  kind: IPAdressPool\n  metadata: {name: p}\n';
    const { status, result } = await validateJSON(['-'], text);
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'unknownKind', message: expect.stringContaining('did you mean "IPAddressPool"') }),
    ]);
    expect(status).toBe(1);
  });
});

describe('YAML that merely starts with a flow mapping', () => {
  it('is left as YAML: a "[" on a later block line is not taken for a second JSON value', async () => {
    const text =
      '{apiVersion: metallb.io/v1beta1, kind: L2Advertisement, metadata: {name: l2}}\n---\n' +
      'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: lan}\nspec:\n  addresses: [192.0.2.0/28]\n';
    const run = await runMlbInProcess(['validate', '-'], {}, text);
    expect(run.stdout).toContain('<stdin>: valid (1 pools, 1 advertisements');
    expect(run.status).toBe(0);
  });
});
