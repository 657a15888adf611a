/**
 * `mlb install` from start to end: read the host, decide the plan, refuse with every reason or do it, then run
 * `mlb validate` on the installed file and, when the daemon was started, `mlb status --once`, as the README's
 * hand install ends.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CommandError, ExitCode } from '../exit-codes';
import { selfCommand } from '../../packaging/single-executable';
import { applyPlan, describeStep } from './apply-plan';
import { InstallError } from './install-error';
import { readHostFacts, underRoot } from './host-facts';
import { installRequest, type InstallFlags } from './install-request';
import { planInstall, type InstallPlan } from './install-plan';
import { INSTALL_PATHS } from './install-paths';
import { canPrompt, terminalAsk } from './prompt';

/** How long the started daemon may take to open its control socket before `mlb status` is tried anyway. */
const SOCKET_WAIT_MS = 10_000;
/** How often the socket's path is looked at meanwhile. */
const SOCKET_POLL_MS = 200;
/** MLB_* variables the child `mlb` may keep: the rest would be read as its flags (and strict parsing refuses them). */
const KEPT_MLB_VARIABLES = new Set(['MLB_NATIVE_ADDON', 'MLB_UDP_TTL_ADDON', 'MLB_NETLINK_ADDON']);

export interface RunInstallOptions extends InstallFlags {
  readonly yes: boolean;
  readonly dryRun: boolean;
}

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** This same mlb, to run one of its commands: the executable itself, or node with the bundle. */
function mlbItself(args: readonly string[]): { status: number | null } {
  const command = selfCommand() ?? [process.execPath];
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MLB_') || KEPT_MLB_VARIABLES.has(name)));
  return spawnSync(command[0]!, [...command.slice(1), ...args], { stdio: ['ignore', 'inherit', 'inherit'], env });
}

function printPlan(plan: InstallPlan, dryRun: boolean): void {
  for (const warning of plan.warnings) print(`warning: ${warning}`);
  if (plan.steps.length === 0) print('Nothing to change: everything is already installed as given.');
  else if (dryRun) {
    print('Would do (--dry-run: nothing is changed):');
    for (const step of plan.steps) print(`  ${describeStep(step)}`);
  }
  if (plan.unchanged.length > 0) print(`Already as it should be: ${plan.unchanged.map((u) => u.path).join(', ')}`);
}

function printDeferred(plan: InstallPlan): void {
  if (plan.deferred.length > 0) {
    print('Left for you to run (as root):');
    for (const d of plan.deferred) print(`  ${d.command}    # ${d.why}`);
  }
  // Who may read the control socket is a choice per person, so it is said, not done (README's usermod step).
  print(
    `To let ${process.env.SUDO_USER || 'a user'} run mlb status and mlb drain without root: usermod -aG mlb ${process.env.SUDO_USER || 'NAME'} (then log in again)`,
  );
}

async function waitForSocket(path: string): Promise<boolean> {
  for (let waited = 0; waited < SOCKET_WAIT_MS; waited += SOCKET_POLL_MS) {
    if (existsSync(path)) return true;
    await sleep(SOCKET_POLL_MS);
  }
  return existsSync(path);
}

export async function runInstall(options: RunInstallOptions): Promise<void> {
  const onThisHost = options.root === '/';
  const facts = await readHostFacts(options.root, onThisHost);
  const terminal = canPrompt(options.yes) ? terminalAsk() : undefined;
  let request;
  try {
    request = await installRequest(options, facts, onThisHost, terminal?.ask);
  } finally {
    terminal?.close();
  }
  const plan = planInstall(request, facts);
  if (plan.problems.length > 0) {
    for (const warning of plan.warnings) print(`warning: ${warning}`);
    const reasons = plan.problems.map((p) => `  ${p.code}: ${p.message.replaceAll('\n', '\n    ')}`).join('\n');
    throw new CommandError(`install refused, nothing was changed:\n${reasons}`, plan.problems[0]!.code);
  }
  printPlan(plan, options.dryRun);
  if (options.dryRun) {
    printDeferred(plan);
    return;
  }
  if (plan.steps.length > 0) {
    print(`Installing on ${onThisHost ? 'this host' : options.root}:`);
    try {
      applyPlan(plan, options.root, print);
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      // Each step is whole or not done, and the plan skips what is already right: running again finishes it.
      throw new CommandError(
        `${error.message}\nThe steps listed above were done; fix this and run mlb install again to finish.`,
        error.code,
      );
    }
  }
  printDeferred(plan);

  const config = underRoot(options.root, INSTALL_PATHS.config);
  print(`\n$ mlb validate --config ${config} --node-name ${plan.nodeName}`);
  const validated = mlbItself(['validate', '--config', config, '--node-name', plan.nodeName]);
  if (validated.status !== 0) throw new CommandError(`the installed ${config} is not valid (above)`, 'validateFailed');
  if (!plan.started) return;
  print('\n$ mlb status --once');
  if (!(await waitForSocket(INSTALL_PATHS.controlSocket))) {
    print(`(the daemon has not opened ${INSTALL_PATHS.controlSocket} after ${SOCKET_WAIT_MS / 1000} s: see journalctl -u mlb)`);
  }
  const status = mlbItself(['status', '--once']);
  if (status.status !== 0) process.exitCode = ExitCode.failure;
}
