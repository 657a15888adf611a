/**
 * Pure readers of BIRD 2.0's birdc text (it has no JSON): `show protocols all` into sessions, `show route
 * <prefix> all` into RouterPaths, `show bfd sessions` into BFD sessions. The layouts were taken from BIRD 2.0.12
 * in this lab; a line that does not fit is skipped, a missing essential (a path without a next hop) is a
 * RouterError('badOutput'), so a changed layout fails loudly instead of reading as "no route".
 */
import type { Origin, PeerSession, RouterPath } from '../../../src/cli/lab/route-path';
import { RouterError } from '../../../src/cli/lab/router-shell';

export interface BirdSession extends PeerSession {
  /** The BIRD protocol carrying the session (mlb1, or mlbdyn1 for a listen range). */
  readonly protocol: string;
  /** iBGP (same AS): only then is BGP.local_pref the peer's LOCAL_PREF rather than BIRD's own default. */
  readonly internal: boolean;
}

export interface BirdBfdSession {
  readonly address: string;
  readonly interface: string;
  /** Up, Down, Init, AdminDown (BIRD's words). */
  readonly state: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/** Protocol header lines start in column 0: `name  proto  table  state  since  info`. */
const PROTOCOL_LINE = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)$/;

export function parseBirdProtocols(text: string): BirdSession[] {
  const sessions: BirdSession[] = [];
  const blocks = text.split('\n').reduce<string[][]>((acc, line) => {
    if (PROTOCOL_LINE.test(line) && !/^\s/.test(line)) acc.push([line]);
    else acc.at(-1)?.push(line);
    return acc;
  }, []);
  for (const block of blocks) {
    const header = PROTOCOL_LINE.exec(block[0] ?? '');
    if (!header || header[2] !== 'BGP') continue;
    const field = (name: string) => block.map((l) => new RegExp(`^\\s+${name}:\\s+(.*)$`).exec(l)?.[1]?.trim()).find(Boolean);
    const address = field('Neighbor address');
    if (!address) continue; // a listen-range template, not a session
    const state = field('BGP state') ?? header[6] ?? 'unknown';
    const imported = block
      .map((l) => /^\s+Routes:\s+(\d+) imported/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined)
      .reduce((sum, n) => sum + Number(n), 0);
    const remoteAs = field('Neighbor AS');
    sessions.push({
      protocol: header[1] as string,
      address,
      ...(remoteAs ? { remoteAs: Number(remoteAs) } : {}),
      state,
      established: state === 'Established',
      prefixesReceived: imported,
      internal: /^internal/.test(field('Session') ?? ''),
    });
  }
  return sessions;
}

/** A path's first line: `[prefix] unicast [proto time (from addr)?] (*)? (pref) [ASxxxx?]`. */
const PATH_LINE = /^(\S+)?\s+\S+\s+\[(\S+)\s[^\]]*\](\s+\*)?\s+\((\d+)\)/;

function pairs(text: string, size: 2 | 3): string[] {
  return [...text.matchAll(/\(([^)]*)\)/g)].map((m) =>
    (m[1] ?? '')
      .split(',')
      .map((s) => s.trim())
      .slice(0, size)
      .join(':'),
  );
}

/**
 * `show route <prefix> all`. `internalProtocols` names the iBGP sessions: BIRD shows a BGP.local_pref on every
 * path (its own default on eBGP ones), and only on iBGP paths is it what the speaker sent.
 */
export function parseBirdRoutes(text: string, prefix: string, sessions: readonly BirdSession[] = []): RouterPath[] {
  if (/Network not found/.test(text)) return [];
  const byProtocol = new Map(sessions.map((s) => [s.protocol, s]));
  const paths: RouterPath[] = [];
  let current: { protocol: string; best: boolean; attrs: Map<string, string>; via?: string } | undefined;
  const flush = () => {
    if (!current) return;
    const a = current.attrs;
    const nextHop = a.get('BGP.next_hop')?.split(' ')[0] ?? current.via;
    if (!nextHop) throw new RouterError('badOutput', `BIRD path of ${prefix} without a next hop:\n${text}`);
    const session = byProtocol.get(current.protocol);
    const origin = a.get('BGP.origin')?.toLowerCase() as Origin | undefined;
    const localPref = a.get('BGP.local_pref');
    const asPath = (a.get('BGP.as_path') ?? '')
      .split(/\s+/)
      .filter((s) => /^\d+$/.test(s))
      .map(Number);
    paths.push({
      prefix,
      nextHop,
      ...(session ? { peer: session.address } : {}),
      asPath,
      ...(origin ? { origin } : {}),
      communities: pairs(a.get('BGP.community') ?? '', 2),
      largeCommunities: pairs(a.get('BGP.large_community') ?? '', 3),
      ...(session?.internal && localPref !== undefined ? { localPref: Number(localPref) } : {}),
      best: current.best,
    });
    current = undefined;
  };
  for (const line of text.split('\n')) {
    const start = PATH_LINE.exec(line);
    if (start && !line.startsWith('\t')) {
      flush();
      current = { protocol: start[2] as string, best: start[3] !== undefined, attrs: new Map() };
      continue;
    }
    if (!current) continue;
    const via = /^\s+via (\S+)/.exec(line);
    if (via) current.via ??= via[1];
    const attr = /^\s+(BGP\.\w+):\s*(.*)$/.exec(line);
    if (attr) current.attrs.set(attr[1] as string, (attr[2] ?? '').trim());
  }
  flush();
  return paths;
}

export function parseBirdBfdSessions(text: string): BirdBfdSession[] {
  const sessions: BirdBfdSession[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s+(\S+)\s+(Up|Down|Init|AdminDown)\s+\S+\s+([\d.]+)\s+([\d.]+)\s*$/.exec(line);
    if (!m) continue;
    sessions.push({
      address: m[1] as string,
      interface: m[2] as string,
      state: m[3] as string,
      intervalMs: Math.round(Number(m[4]) * 1000),
      timeoutMs: Math.round(Number(m[5]) * 1000),
    });
  }
  return sessions;
}
