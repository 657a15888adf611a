/**
 * The group the control socket belongs to (--control-socket-group, MLB_CONTROL_SOCKET_GROUP). With mode 0660 the
 * socket's group decides who may run `mlb status` and `mlb drain` without root; left as the daemon's own group
 * (root under systemd) only root could, and telling users to join group root would hand them much more than mlb.
 *
 * Node has no getgrnam, so the name is looked up in /etc/group (groups from NSS modules such as LDAP are not seen:
 * pass the numeric gid for those). Parsing is pure; reading the file is the shell.
 */
import { readFile } from 'node:fs/promises';
import { ControlSocketError } from './control-errors';

/** Where group names live on every Linux host (group(5)). */
export const GROUP_FILE = '/etc/group';

/** The gid of `name` in group(5) text ("name:x:gid:members" lines), or undefined when no line names it. */
export function findGroupId(groupFile: string, name: string): number | undefined {
  for (const line of groupFile.split('\n')) {
    const fields = line.split(':');
    if (fields[0] !== name || fields.length < 3) continue;
    const gid = Number(fields[2]);
    if (Number.isInteger(gid) && gid >= 0) return gid;
  }
  return undefined;
}

/** The group name of `gid` in group(5) text, or undefined. */
export function findGroupName(groupFile: string, gid: number): string | undefined {
  for (const line of groupFile.split('\n')) {
    const fields = line.split(':');
    if (fields.length >= 3 && fields[2] === String(gid) && fields[0]) return fields[0];
  }
  return undefined;
}

/** A numeric gid as given, else the named group's; ControlSocketError('controlSocketGroupUnknown') when none. */
export async function resolveSocketGroup(group: string, groupFile = GROUP_FILE): Promise<number> {
  if (/^\d+$/.test(group)) return Number(group);
  let text = '';
  try {
    text = await readFile(groupFile, 'utf8');
  } catch (error) {
    throw new ControlSocketError(
      `cannot read ${groupFile} to find group "${group}" for the control socket: ${(error as Error).message}`,
      'controlSocketGroupUnknown',
    );
  }
  const gid = findGroupId(text, group);
  if (gid === undefined) {
    throw new ControlSocketError(
      `the control socket group "${group}" does not exist on this host: create it (sudo groupadd --system ${group}) or pass another --control-socket-group`,
      'controlSocketGroupUnknown',
    );
  }
  return gid;
}
