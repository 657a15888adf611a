/**
 * The `mlb` command line's entry: the bundle's first file (dist/mlb.mjs), and the configuration parser thread's
 * and the gossip thread's too (worker-parser.ts and threaded-gossip.ts start workers at this same file). It parses no command line itself: it answers the few it
 * can from text baked in at build time (prebuilt-answer.ts: `mlb --help` in well under the time loading yargs
 * takes) and loads the whole command line (cli-program.ts: yargs, commands/, the exit codes) for every other.
 *
 * scripts/build.mjs bundles this file alone, with the two import()s below left to files beside it: what it imports
 * statically is all `mlb --help` loads. Whatever it shares with the rest of mlb is a copy, so it must hold no state
 * and no class the rest could be handed (an error it tests with instanceof would be another class than the one thrown).
 */
import { isConfigParserWorker } from '../sources/file/parser-worker-role';
import { isGossipThread } from '../daemon/gossip-thread/gossip-thread-role';
import { brokenPipeDecision, handleBrokenPipes } from './broken-pipe';
import { commandWord } from './argv-shortcuts';
import { isInProcessHost, type InProcessInput, type InProcessResult } from './in-process-run';
import { prebuiltAnswer, prebuiltHelp } from './prebuilt-answer';
import { helpWidth } from './help-width';
import { buildInfo } from './build-info';
import { ExitCode } from './exit-codes';

/**
 * The same bundle is also the daemon's configuration parser thread (worker-parser.ts), then it only parses, and its
 * gossip thread (threaded-gossip.ts), then it only gossips.
 */
function run(): void {
  if (isConfigParserWorker()) {
    void import('../sources/file/worker-parser').then((w) => w.runConfigParserWorker());
    return;
  }
  if (isGossipThread()) {
    void import('../daemon/gossip-thread/gossip-thread').then((g) => g.runGossipThread());
    return;
  }
  // node's own two arguments are its executable and this file (in the one-file build, the executable twice).
  const argv = process.argv.slice(2);
  handleBrokenPipes([process.stdout, process.stderr], brokenPipeDecision(commandWord(argv)), (code) => process.exit(code));
  const answer = prebuiltAnswer({
    argv,
    env: process.env,
    width: helpWidth(process.stdout),
    help: prebuiltHelp(),
    build: buildInfo(),
    node: process.version,
  });
  if (answer !== undefined) {
    process.stdout.write(answer);
    process.exitCode = ExitCode.ok;
    return;
  }
  void import('./cli-program').then((program) => program.runAsProcess(argv, import.meta.url));
}

/** `mlb ARGS` inside the calling process, for tests (in-process-run.ts); the bundle exports it. */
export async function runMlbInProcess(input: InProcessInput): Promise<InProcessResult> {
  const program = await import('./cli-program');
  return program.runInThisProcess(input, import.meta.url);
}

if (!isInProcessHost()) run();
