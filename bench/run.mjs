// Runs every bench/*.bench.ts with tsx, one process each (a clean heap per benchmark), and fails if any fails.
// Usage: node --expose-gc bench/run.mjs [filter]   (npm run bench builds first)
// A filter that names a bench exactly (`scale`: bench/scale.bench.ts) runs that one alone, not every bench whose
// name contains it (gossip-scale too); any other filter runs every bench whose file name contains it.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const all = readdirSync(here).filter((f) => f.endsWith('.bench.ts'));
const benches = all.includes(`${filter}.bench.ts`) ? [`${filter}.bench.ts`] : all.filter((f) => f.includes(filter)).sort();
if (benches.length === 0) {
  console.error(`bench: no bench/*.bench.ts matches "${filter}"`);
  process.exit(2);
}
let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, file)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`bench: ${file} ${r.signal ? `killed by ${r.signal}` : `exited ${r.status}`}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
