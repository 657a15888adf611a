// The baseline of the controller row: the least work a controller can do to give N Services an address. It knows
// every answer beforehand (service i gets POOL_BASE + i), reads nothing, and sends one merge PATCH of
// /status per Service over keep-alive connections, `concurrency` requests in flight. Plain node:http, no client
// library, so its time is the API server's and the requests', nothing else.
// Usage: node status-baseline.mjs URL COUNT CONCURRENCY   (exits 0 once every PATCH succeeded)
import { Agent, request } from 'node:http';

const [url, countText, concurrencyText] = process.argv.slice(2);
const count = Number(countText);
const concurrency = Number(concurrencyText);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const { hostname, port } = new URL(url);
/** Must match cluster-objects.ts: namespaces team-0..team-19, names svc-00000.., addresses from 10.128.0.0. */
const NAMESPACES = 20;

function patch(i) {
  const name = `svc-${String(i).padStart(5, '0')}`;
  const ip = `10.128.${(i >> 8) & 255}.${i & 255}`;
  const body = JSON.stringify({ status: { loadBalancer: { ingress: [{ ip, ipMode: 'VIP' }] } } });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname,
        port,
        method: 'PATCH',
        path: `/api/v1/namespaces/team-${i % NAMESPACES}/services/${name}/status`,
        headers: { 'content-type': 'application/merge-patch+json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${name}: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let next = 0;
async function worker() {
  while (next < count) await patch(next++);
}
await Promise.all(Array.from({ length: concurrency }, worker));
agent.destroy();
