/**
 * Where `mlb install` puts each file: the README's hand install ("Installing on two or three plain hosts"), which
 * systemd/mlb.service reads. Paths are as seen on the target host; the applier prefixes them with --root.
 */
export const INSTALL_PATHS = {
  /** The unit's ExecStart runs this (a hand install; the Debian package has /usr/bin/mlb instead). */
  binary: '/usr/local/bin/mlb',
  configDir: '/etc/mlb',
  /** The cluster's configuration: the same file on every host. */
  config: '/etc/mlb/mlb.yaml',
  /** The shared gossip key (MetalLB's memberlist secretkey). */
  key: '/etc/mlb/gossip.key',
  /** This host's MLB_* variables: the unit's EnvironmentFile. */
  env: '/etc/default/mlb',
  /** A locally installed unit: /etc/systemd/system wins over the package's /lib/systemd/system. */
  unit: '/etc/systemd/system/mlb.service',
  /** The Debian package's unit and binary: when they are there, the install leaves both to the package. */
  packagedUnit: '/lib/systemd/system/mlb.service',
  packagedBinary: '/usr/bin/mlb',
  /** The daemon's control socket, as the unit's --control-socket names it. */
  controlSocket: '/run/mlb/mlb.sock',
} as const;

/** The control socket's group (the unit's --control-socket-group and SupplementaryGroups). */
export const MLB_GROUP = 'mlb';
/** The systemd unit's name. */
export const UNIT_NAME = 'mlb';

/** Modes: the key is the cluster's secret (gossip-key.ts warns when others can read it); the rest is public. */
export const MODES = {
  dir: 0o755,
  binary: 0o755,
  publicFile: 0o644,
  key: 0o600,
} as const;
