/** The control API's routing and the explain filter, without a socket: what each request is answered with. */
import { describe, expect, it } from 'vitest';
import { filterExplanations, parseExplainFilter, explainQuery, routeRequest, EVERY_EXPLANATION } from '../../../src/daemon/control';
import { exampleExplanations } from './fake-daemon';

describe('routeRequest', () => {
  it('maps the seven routes to their handlers', () => {
    expect(routeRequest('GET', '/v1/events?after=42')).toEqual({ kind: 'events', after: 42 });
    expect(routeRequest('GET', '/v1/snapshot')).toEqual({ kind: 'snapshot' });
    expect(routeRequest('GET', '/v1/status')).toEqual({ kind: 'status' });
    expect(routeRequest('GET', '/v1/explain')).toEqual({ kind: 'explain', filter: EVERY_EXPLANATION });
    expect(routeRequest('POST', '/v1/drain')).toEqual({ kind: 'drain' });
    expect(routeRequest('POST', '/v1/undrain')).toEqual({ kind: 'undrain' });
    expect(routeRequest('POST', '/v1/warmup/end')).toEqual({ kind: 'endWarmUp' });
  });

  it('drain and undrain take one node to ask, by name', () => {
    expect(routeRequest('POST', '/v1/drain?node=node-2')).toEqual({ kind: 'drain', node: 'node-2' });
    expect(routeRequest('POST', '/v1/undrain?node=n%C3%B6de')).toEqual({ kind: 'undrain', node: 'nöde' });
    expect(routeRequest('POST', '/v1/drain?node=')).toMatchObject({ status: 400, code: 'badRequest' });
    expect(routeRequest('POST', '/v1/drain?node=a&node=b')).toMatchObject({ status: 400, code: 'badRequest' });
  });

  it('answers an unknown path with 404 naming the routes that exist', () => {
    const route = routeRequest('GET', '/v2/snapshot');
    expect(route).toMatchObject({ kind: 'error', status: 404, code: 'notFound' });
    expect(route.kind === 'error' && route.message).toContain('/v1/snapshot');
    expect(routeRequest('GET', '/__proto__')).toMatchObject({ status: 404 });
    expect(routeRequest('GET', '/constructor')).toMatchObject({ status: 404 });
  });

  it('answers a wrong method with 405 and the method the path takes', () => {
    expect(routeRequest('GET', '/v1/drain')).toMatchObject({ status: 405, code: 'methodNotAllowed', allow: ['POST'] });
    expect(routeRequest('DELETE', '/v1/snapshot')).toMatchObject({ status: 405, allow: ['GET'] });
  });

  it('refuses unknown query parameters and bad filters with 400 instead of ignoring them', () => {
    expect(routeRequest('GET', '/v1/snapshot?verbose=1')).toMatchObject({ status: 400, code: 'badRequest' });
    expect(routeRequest('GET', '/v1/status?offset=0&limit=10')).toMatchObject({ status: 400, code: 'badRequest' });
    expect(routeRequest('GET', '/v1/explain?sevrice=demo/web')).toMatchObject({ status: 400, code: 'badRequest' });
    const badIP = routeRequest('GET', '/v1/explain?ip=10.0.0.300');
    expect(badIP).toMatchObject({ status: 400 });
    expect(badIP.kind === 'error' && badIP.message).toContain('10.0.0.300');
    expect(routeRequest('GET', '/v1/explain?service=a/b/c')).toMatchObject({ status: 400 });
    expect(routeRequest('GET', 'http://elsewhere.example/v1/snapshot')).toMatchObject({ status: 400 });
  });

  it('streams every held event without after=, and refuses an after that is not one sequence number', () => {
    expect(routeRequest('GET', '/v1/events')).toEqual({ kind: 'events', after: 0 });
    expect(routeRequest('GET', '/v1/events?after=0')).toEqual({ kind: 'events', after: 0 });
    for (const bad of ['-1', '1.5', '1e3', '', 'x', '99999999999999999999', '1&after=2']) {
      const route = routeRequest('GET', `/v1/events?after=${bad}`);
      expect(route, bad).toMatchObject({ kind: 'error', status: 400, code: 'badRequest' });
      expect(route.kind === 'error' && route.message, bad).toContain('after=');
    }
    expect(routeRequest('POST', '/v1/events')).toMatchObject({ status: 405, allow: ['GET'] });
    expect(routeRequest('GET', '/v1/events?since=3')).toMatchObject({ status: 400, code: 'badRequest' });
  });

  it('canonicalises IPs and completes bare service names in the filter', () => {
    expect(routeRequest('GET', '/v1/explain?ip=FD00:10:0:0::200&service=web&service=demo/dns-tcp')).toEqual({
      kind: 'explain',
      filter: { services: ['default/web', 'demo/dns-tcp'], ips: ['fd00:10::200'] },
    });
  });
});

describe('filterExplanations', () => {
  it('keeps what any service or IP names, in the daemon order, and everything for an empty filter', async () => {
    const all = await exampleExplanations();
    expect(filterExplanations(all, EVERY_EXPLANATION)).toEqual(all);
    const parsed = parseExplainFilter(['demo/web'], ['192.168.10.210']);
    if (!parsed.ok) throw new Error(parsed.problem);
    const kept = filterExplanations(all, parsed.filter);
    expect(kept.map((e) => e.service).sort()).toEqual(['demo/dns-tcp', 'demo/dns-udp', 'demo/web']);
    expect(kept).toEqual(all.filter((e) => kept.includes(e)));
  });

  it('round-trips through the query string the client sends', () => {
    const filter = { services: ['demo/web'], ips: ['fd00:10::200', '192.168.10.210'] };
    expect(routeRequest('GET', `/v1/explain${explainQuery(filter)}`)).toEqual({ kind: 'explain', filter });
    expect(explainQuery(EVERY_EXPLANATION)).toBe('');
  });
});
