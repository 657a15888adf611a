/**
 * Does a plan's steps on the host under --root (the imperative shell of install-plan.ts), in order, saying each
 * as it is done. Files are written beside their target and renamed over it: the daemon watches mlb.yaml and must
 * read the old file or the new one, never half of one (README, "Changing the configuration"); the key is created
 * 0600 from its first byte, never briefly readable.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { underRoot } from './host-facts';
import { InstallError } from './install-error';
import type { InstallPlan, InstallStep } from './install-plan';

/** The temporary name a file is written under before it is renamed over its target (same directory). */
const TEMPORARY_SUFFIX = '.mlb-install.tmp';

const mode = (m: number): string => m.toString(8).padStart(4, '0');

/** The step as one line: what is (or would be) done, and why. */
export function describeStep(step: InstallStep): string {
  switch (step.kind) {
    case 'mkdir':
      return `create ${step.path}/ (${mode(step.mode)})`;
    case 'writeFile':
      return `write ${step.path} (${mode(step.mode)}): ${step.why}`;
    case 'chmod':
      return `chmod ${mode(step.mode)} ${step.path}: ${step.why}`;
    case 'copyBinary':
      return `install ${step.from} as ${step.path} (${mode(step.mode)}): ${step.why}`;
    case 'group':
      return `groupadd --system ${step.name}: ${step.why}`;
    case 'systemctl':
      return `systemctl ${step.args.join(' ')}: ${step.why}`;
  }
}

function replaceFile(target: string, fileMode: number, write: (temporary: string) => void): void {
  const temporary = `${target}${TEMPORARY_SUFFIX}`;
  rmSync(temporary, { force: true });
  try {
    write(temporary);
    // The umask may have taken bits away from the mode asked for at creation.
    chmodSync(temporary, fileMode);
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function run(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw new InstallError('applyFailed', `${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new InstallError('applyFailed', `${command} ${args.join(' ')} failed (exit ${result.status})`);
}

function applyStep(step: InstallStep, root: string): void {
  switch (step.kind) {
    case 'mkdir':
      mkdirSync(underRoot(root, step.path), { recursive: true, mode: step.mode });
      return;
    case 'writeFile':
      replaceFile(underRoot(root, step.path), step.mode, (temporary) =>
        writeFileSync(temporary, step.content, { mode: step.mode, flag: 'wx' }),
      );
      return;
    case 'chmod':
      chmodSync(underRoot(root, step.path), step.mode);
      return;
    case 'copyBinary':
      replaceFile(underRoot(root, step.path), step.mode, (temporary) => copyFileSync(step.from, temporary));
      return;
    case 'group':
      run('groupadd', ['--system', step.name]);
      return;
    case 'systemctl':
      run('systemctl', step.args);
      return;
  }
}

/** Applies every step, printing each; the first failure stops the install with what failed. */
export function applyPlan(plan: InstallPlan, root: string, print: (line: string) => void): void {
  for (const step of plan.steps) {
    try {
      applyStep(step, root);
    } catch (error) {
      if (error instanceof InstallError) throw error;
      throw new InstallError('applyFailed', `${describeStep(step)}: ${(error as Error).message}`, { cause: error });
    }
    print(`  ${describeStep(step)}`);
  }
}
