/**
 * --health-check-user NAME: `exec:` health checks run with that user's uid and gid instead of the daemon's
 * (root under the systemd unit). The program then has none of the daemon's capabilities and cannot write what
 * root owns: the state directory, /proc/sys. Node's spawn switches ids in the child (setgroups to none, setgid,
 * setuid), which needs CAP_SETUID and CAP_SETGID in the daemon; the unit leaves them out unless this is used.
 *
 * The name is looked up with getent, so users from NSS (LDAP, systemd-userdb) work as well as /etc/passwd.
 */
import { execFile, spawn } from 'node:child_process';
import { CodedError } from '../../errors/coded-error';

/** The ids exec: checks run with. */
export interface RunAs {
  readonly user: string;
  readonly uid: number;
  readonly gid: number;
}

type RunAsErrorCode = 'healthCheckUserUnknown' | 'healthCheckUserUnusable';

class RunAsError extends CodedError<RunAsErrorCode> {}

/** getent answers at once from local files; an NSS backend that hangs must not hold the start for long. */
const LOOKUP_TIMEOUT_MS = 5_000;
/** Ids that are not a user: -1 means "unchanged" to setuid(2), and the kernel's overflow id maps unknown users. */
const INVALID_IDS: ReadonlySet<number> = new Set([-1, 0xffffffff]);

/** The user and its primary group from one passwd line (name:password:uid:gid:gecos:home:shell). Pure. */
export function parsePasswdEntry(line: string): RunAs | undefined {
  const fields = line.trim().split(':');
  if (fields.length < 4) return undefined;
  const [user, , uidText, gidText] = fields as [string, string, string, string];
  const uid = Number(uidText);
  const gid = Number(gidText);
  if (!user || !/^\d+$/.test(uidText) || !/^\d+$/.test(gidText) || INVALID_IDS.has(uid) || INVALID_IDS.has(gid)) return undefined;
  return { user, uid, gid };
}

/** Looks the user up; rejects with RunAsError naming the flag when there is no such user. */
export async function resolveRunAs(name: string): Promise<RunAs> {
  const line = await new Promise<string | undefined>((resolve) => {
    execFile('getent', ['passwd', name], { timeout: LOOKUP_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
  const entry = line === undefined ? undefined : parsePasswdEntry(line.split('\n', 1)[0] ?? '');
  if (!entry)
    throw new RunAsError('healthCheckUserUnknown', `--health-check-user ${name}: no such user (getent passwd ${name} found none)`);
  return entry;
}

/**
 * Proves at start that this process may switch to the user (a short child that exits at once), so a missing
 * capability is one clear start-up error rather than every exec: check failing with "spawn EPERM".
 */
export async function checkRunAs(runAs: RunAs): Promise<void> {
  const failure = await new Promise<Error | undefined>((resolve) => {
    try {
      const child = spawn(process.execPath, ['--version'], { stdio: 'ignore', uid: runAs.uid, gid: runAs.gid, cwd: '/' });
      child.once('error', resolve);
      child.once('exit', () => resolve(undefined));
    } catch (error) {
      // A refused setuid/setgid is thrown by spawn itself (EPERM), not emitted.
      resolve(error as Error);
    }
  });
  if (failure) {
    throw new RunAsError(
      'healthCheckUserUnusable',
      `--health-check-user ${runAs.user}: cannot run a program as uid ${runAs.uid} gid ${runAs.gid} (${failure.message}): ` +
        'the daemon needs CAP_SETUID and CAP_SETGID (under systemd, add them to CapabilityBoundingSet in a drop-in)',
    );
  }
}
