import { describe, expect, it } from 'vitest';
import { cidrContains, parseCIDR, parseIP } from '../../src/ip';
import { formatDiagnostic, parseConfig } from '../../src/model';
import { LabService, expectedServiceIPs, extraServiceText, labConfigText } from '../../src/cli/lab/lab-config';
import { LAB_API_IP, LAB_EXTRA_IP, LAB_POOL_V4, LAB_POOL_V6, planLab } from '../../src/cli/lab/lab-plan';

describe('the lab configuration', () => {
  const plan = planLab({ nodes: 4 });
  const text = labConfigText(plan);

  it('validates with no error and no warning (what `mlb validate` would say of it)', () => {
    const parsed = parseConfig(text, 'mlb.yaml');
    // Notes only say which ipFamilies mlb chose for services that wrote none.
    expect(parsed.diagnostics.filter((d) => d.severity !== 'note').map(formatDiagnostic)).toEqual([]);
    expect(parsed.ok).toBe(true);
  });

  it('describes every lab node, two pools, one L2 advertisement and the three demo services', () => {
    const parsed = parseConfig(text, 'mlb.yaml');
    if (!parsed.ok) throw new Error('invalid');
    const s = parsed.snapshot;
    expect(s.nodes.map((n) => n.meta.name)).toEqual(['node-1', 'node-2', 'node-3', 'node-4']);
    expect(s.pools.map((p) => p.meta.name).sort()).toEqual(['lab', 'lab-v6']);
    expect(s.l2Advertisements).toHaveLength(1);
    expect(s.services.map((svc) => `${svc.meta.namespace}/${svc.meta.name}`).sort()).toEqual(
      [LabService.api, LabService.web, LabService.webV6].sort(),
    );
    const web = s.services.find((svc) => svc.meta.name === 'web');
    expect(web?.meta.annotations['mlb.io/health-check']).toBe('http://127.0.0.1:80/healthz');
    expect(web?.meta.annotations['mlb.io/health-check-interval']).toBe('500ms');
  });

  it('gives web an IP from the IPv4 pool, api its named IP, web-v6 one from the IPv6 pool', () => {
    const ips = expectedServiceIPs(text);
    const web = ips.get(LabService.web)?.[0] ?? '';
    const [first, last] = LAB_POOL_V4.split('-').map((ip) => Number(ip.split('.')[3]));
    const v6 = parseCIDR(LAB_POOL_V6);
    if (!v6) throw new Error('bad pool constant');
    expect(web.startsWith('172.31.213.')).toBe(true);
    expect(Number(web.split('.')[3])).toBeGreaterThanOrEqual(first!);
    expect(Number(web.split('.')[3])).toBeLessThanOrEqual(last!);
    expect(web).not.toBe(LAB_API_IP);
    expect(ips.get(LabService.api)).toEqual([LAB_API_IP]);
    expect(cidrContains(v6, parseIP(ips.get(LabService.webV6)?.[0] ?? '')!)).toBe(true);
  });

  it('takes the reload document as a fourth service with its own IP, leaving the others where they were', () => {
    const before = expectedServiceIPs(text);
    const after = expectedServiceIPs(text + extraServiceText());
    expect(parseConfig(text + extraServiceText(), 'mlb.yaml').ok).toBe(true);
    expect(after.get(LabService.extra)).toEqual([LAB_EXTRA_IP]);
    for (const [key, ips] of before) expect(after.get(key), key).toEqual(ips);
  });
});
