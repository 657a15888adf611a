/**
 * /etc/default/mlb: the unit's EnvironmentFile, one MLB_* variable per line (systemd reads KEY=VALUE lines and
 * ignores # comments). `mlb install` sets the three lines that differ per host and keeps every other line as it
 * is, so a host's own additions (MLB_METRICS_BIND, MLB_GOSSIP_PROFILE ...) survive a re-install. Pure.
 */

/** The per-host settings, in the order examples/mlb.env lists them. */
export interface HostSettings {
  readonly MLB_NODE_NAME: string;
  readonly MLB_GOSSIP_BIND: string;
  /** Comma-separated HOST:PORT list; empty leaves the line commented out (nobody to join yet). */
  readonly MLB_JOIN: string;
}

const SETTING_NAMES = ['MLB_NODE_NAME', 'MLB_GOSSIP_BIND', 'MLB_JOIN'] as const;

/** `NAME=value` or a commented-out `#NAME=value` (the Debian package's conffile comments the per-host lines). */
function settingLine(name: string): RegExp {
  return new RegExp(`^\\s*#?\\s*${name}=`);
}

/** The value a file gives a variable (its last uncommented line, as systemd reads it), or undefined. */
export function envValue(text: string, name: string): string | undefined {
  let value: string | undefined;
  for (const line of text.split('\n')) {
    const match = new RegExp(`^\\s*${name}=(.*)$`).exec(line);
    if (match) value = unquote((match[1] ?? '').trim());
  }
  return value;
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/**
 * The file with this host's settings: each name's first line (set or commented out) becomes the setting, any
 * later line of the same name is dropped (systemd would let it win), and a name the file lacks is appended.
 */
export function withHostSettings(text: string, settings: HostSettings): string {
  const lines = text.replace(/\n$/, '').split('\n');
  // examples/mlb.env opens with "# /etc/default/mlb on node-a: ..."; a host's own file names that host.
  lines[0] = (lines[0] ?? '').replace(/^(# \/etc\/default\/mlb on )[^:\s]+:/, `$1${settings.MLB_NODE_NAME}:`);
  for (const name of SETTING_NAMES) {
    const value = settings[name];
    const wanted = value === '' ? `#${name}=` : `${name}=${value}`;
    const pattern = settingLine(name);
    const at = lines.findIndex((l) => pattern.test(l));
    if (at < 0) {
      lines.push(wanted);
      continue;
    }
    // An empty join keeps whatever commented-out example the file had.
    const keep = value === '' && lines[at]!.trimStart().startsWith('#');
    if (!keep) lines[at] = wanted;
    for (let i = lines.length - 1; i > at; i--) if (pattern.test(lines[i]!) && !lines[i]!.trimStart().startsWith('#')) lines.splice(i, 1);
  }
  return `${lines.join('\n')}\n`;
}
