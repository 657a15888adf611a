import { resolveSocketGroup } from '../../daemon/control/socket-group';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import type { CommandModule } from 'yargs';
import { createLogger, DEFAULT_LOG_LEVEL, LOG_LEVELS, type Logger, type LogLevel } from '../../daemon/logger';
import { loadGossipKeyring } from '../../daemon/gossip-key';
import { parseNodeLabels } from '../../daemon/node-facts';
import { ensureStateDir } from '../../daemon/state-dir';
import { checkRunAs, resolveRunAs, type RunAs } from '../../daemon/health/run-as';
import { assembleSpeaker } from '../../daemon/speaker-assembly';
import { StartError } from '../../daemon/start-failure';
import { METALLB_METRICS_PORT } from '../../daemon/metrics/metrics-port';
import type { MetricsServer } from '../../daemon/metrics';
import { DEFAULT_CONTROL_SOCKET } from '../control-client';
import { buildInfo } from '../build-info';
import { releaseText } from '../../daemon/records-protocol';
import { SWIM_PROFILES, type SwimProfileName } from '../../gossip/swim';
import { parseHostPort } from '../../gossip/transport/address';
import { CommandError, ExitCode, UsageError } from '../exit-codes';
import { ConfigLoadError, parseInProcess, sizeChosenParser, workerParser } from '../../sources/file';
import { maxConfigBytes, maxConfigBytesOption } from '../config-input';
import { configOption, daemonConfig } from '../config-argument';
import { type KubernetesArgs, checkKubernetesArgs, kubernetesModeOptions, kubernetesOptions } from '../kubernetes-options';
import { type IgnoreExcludeLbArgs, ignoreExcludeLbOption, ignoreExcludeLbSetting } from '../ignore-exclude-lb-option';
import { kubernetesNodeName } from '../../sources/k8s/kubernetes-mode';
import {
  kubernetesGossipBind,
  openKubernetesSpeakerPart,
  speakerHealthBindOption,
  type SpeakerHealthArgs,
} from '../kubernetes-speaker-part';
import { formatDiagnostic } from '../../model';

interface DaemonArgs extends KubernetesArgs, SpeakerHealthArgs, IgnoreExcludeLbArgs {
  config?: string;
  'max-config-bytes': number;
  'node-name': string;
  'node-labels'?: string;
  'gossip-bind'?: string;
  'gossip-advertise'?: string;
  'gossip-profile': SwimProfileName;
  join?: string;
  'gossip-key-file'?: string;
  'state-dir': string;
  'control-socket': string;
  'control-socket-group'?: string;
  announce: boolean;
  'bind-vips': boolean;
  'vip-interface': string;
  'metrics-bind'?: string;
  'log-level': LogLevel;
  'health-check-user'?: string;
}

/** Plain hosts default to the fast failure-detection profile (about 1 s to declare a crashed node dead). */
const PLAIN_HOST_PROFILE: SwimProfileName = 'fast';
/** Where a systemd unit keeps state (StateDirectory=mlb). */
const DEFAULT_STATE_DIR = '/var/lib/mlb';
/** A dummy link holds the VIPs: it never answers ARP itself (NOARP) and mlb owns every address on it. */
const DEFAULT_VIP_INTERFACE = 'mlb0';

export const daemonCommand: CommandModule<object, DaemonArgs> = {
  command: 'daemon',
  describe:
    'Run the speaker on this host: configuration file, gossip membership, health checks, election, ARP/NDP answers for the IPs this node owns',
  builder: (y) =>
    y
      .option('config', {
        ...configOption(
          'The YAML file, or a directory whose *.yaml and *.yml files (in name order) are one configuration; edits are picked up live, a bad edit keeps the last good configuration',
        ),
      })
      .option('max-config-bytes', maxConfigBytesOption)
      .option('kubernetes', kubernetesOptions.kubernetes)
      .option('kubeconfig', kubernetesOptions.kubeconfig)
      .option('namespace', kubernetesOptions.namespace)
      .option('lb-class', kubernetesOptions['lb-class'])
      .option('ignore-exclude-lb', ignoreExcludeLbOption)
      .option('health-bind', speakerHealthBindOption)
      .option('node-name', {
        type: 'string',
        default: hostname(),
        defaultDescription: "this host's name",
        describe: "This node's name in the cluster (the election hashes it)",
      })
      .option('node-labels', {
        type: 'string',
        describe: 'k=v,k2=v2: labels published in gossip, over those of the v1 Node document of the same name',
      })
      .option('gossip-bind', {
        type: 'string',
        describe:
          'HOST:PORT to listen on for gossip (UDP and TCP), e.g. 10.0.0.11:7946 (required; with --kubernetes default METALLB_ML_BIND_ADDR:METALLB_ML_BIND_PORT)',
      })
      .option('gossip-advertise', {
        type: 'string',
        describe: 'The address peers reach us at (required when --gossip-bind is 0.0.0.0 or ::)',
      })
      .option('gossip-profile', {
        choices: ['fast', 'fast-failover', 'lan', 'wan'] as const,
        default: PLAIN_HOST_PROFILE,
        describe:
          'Failure detection timers: fast (~1 s to declare a crashed node dead), fast-failover (fast, and VIPs move when two members agree a silent node is unreachable: ~0.5 s, see docs/failover.md), lan (memberlist and MetalLB defaults, ~5-8 s), wan',
      })
      .option('join', {
        type: 'string',
        describe: "HOST:PORT[,HOST:PORT...] of existing members (memberlist's name/HOST:PORT form works too)",
      })
      .option('gossip-key-file', {
        type: 'string',
        describe: "File holding MetalLB's memberlist secretkey: encrypts gossip exactly as MetalLB does. Without it gossip is plain.",
      })
      .option('state-dir', {
        type: 'string',
        default: DEFAULT_STATE_DIR,
        describe: 'Where state that must survive a restart lives: known peers, the allocation table, drain and restart history',
      })
      .option('control-socket', {
        type: 'string',
        default: DEFAULT_CONTROL_SOCKET,
        describe: 'Unix socket (mode 0660) for mlb status, mlb explain --socket, mlb drain / undrain',
      })
      .option('control-socket-group', {
        type: 'string',
        describe:
          'Group (name or gid) given the control socket, so its members may run mlb status and mlb drain without root, e.g. mlb (create it with groupadd --system mlb)',
      })
      .option('announce', {
        type: 'boolean',
        default: true,
        describe:
          'Answer ARP/NDP for the IPs this node owns; --no-announce elects and reports only (a dry run beside keepalived, or tests)',
      })
      .option('bind-vips', {
        type: 'boolean',
        default: true,
        describe: 'Add owned IPs to --vip-interface so this host accepts their traffic (nothing like kube-proxy does it on a plain host)',
      })
      .option('vip-interface', {
        type: 'string',
        default: DEFAULT_VIP_INTERFACE,
        describe: "The dummy interface owned IPs are bound to (created if missing; its addresses are mlb's alone)",
      })
      .option('metrics-bind', {
        type: 'string',
        describe: `HOST[:PORT] to serve Prometheus metrics on (GET /metrics; port ${METALLB_METRICS_PORT}, MetalLB's, when left out), e.g. 0.0.0.0:${METALLB_METRICS_PORT}. Off unless given: the page names every service, IP and node to whoever can reach it`,
      })
      .option('health-check-user', {
        type: 'string',
        describe:
          "Run exec: health checks as this user (its uid and primary gid) instead of the daemon's; needs CAP_SETUID and CAP_SETGID (see systemd/mlb.service)",
      })
      .option('log-level', { choices: LOG_LEVELS, default: DEFAULT_LOG_LEVEL, describe: 'debug adds every gossip decision' })
      .example(
        'mlb daemon --config /etc/mlb/mlb.yaml --node-name node-a --gossip-bind 10.0.0.11:7946 --join 10.0.0.12:7946,10.0.0.13:7946',
        'one host of three',
      )
      .epilogue(
        "On SIGTERM or SIGINT it hands its IPs to the next nodes, waits until they announce them (up to 3 s), then leaves the cluster. Logs are JSON lines (MetalLB's field names) unless stdout is a terminal.",
      ),
  handler: async (args) => {
    const gossipBind = args['gossip-bind'] ?? kubernetesGossipBind(args);
    const bind = parseOrUsage(() => parseHostPort(gossipBind), '--gossip-bind');
    const wildcard = isIP(bind.host) && /^(0\.0\.0\.0|::)$/.test(bind.host);
    if (wildcard && !args['gossip-advertise']) {
      throw new UsageError(`--gossip-bind ${gossipBind} listens everywhere: say which address peers reach us at with --gossip-advertise`);
    }
    const advertise = args['gossip-advertise']
      ? parseOrUsage(() => parseHostPort(args['gossip-advertise']!), '--gossip-advertise').host
      : undefined;
    const join = (args.join ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((a) => parseOrUsage(() => parseHostPort(a), '--join'));
    const nodeLabels = parseOrUsage(() => parseNodeLabels(args['node-labels'] ?? ''), '--node-labels');
    const metricsBind =
      args['metrics-bind'] === undefined
        ? undefined
        : parseOrUsage(() => parseHostPort(args['metrics-bind']!, METALLB_METRICS_PORT), '--metrics-bind');
    const maxBytes = maxConfigBytes(args['max-config-bytes']);
    checkKubernetesArgs(args);
    const configFile = args.kubernetes ? undefined : daemonConfig(args.config);
    const nodeName = args.kubernetes ? kubernetesNodeName(args['node-name']) : args['node-name'];
    const logger = createLogger({ level: args['log-level'], base: { node: nodeName } });

    // From here on every failure is a failed start: said once in the log (where systemd's journal and log
    // pipelines look) and once on stderr by main, naming what failed, and the process exits non-zero.
    let metrics: MetricsServer | undefined;
    const failedStart = async (error: unknown): Promise<never> => {
      const failure = toCommandError(error);
      const message = failure instanceof Error ? failure.message : String(failure);
      const where = error instanceof StartError ? { step: error.step, ...(error.errno ? { errno: error.errno } : {}) } : {};
      logger.error({ event: 'startFailed', code: (failure as { code?: unknown }).code, ...where }, `cannot start: ${message}`);
      const opened = metrics;
      metrics = undefined;
      await opened?.close().catch(() => undefined);
      throw failure;
    };

    // Kubernetes mode: join list from the speaker pods, gossip bind and key from MetalLB's environment, status writer, probes.
    const k8s = args.kubernetes ? await openKubernetesSpeakerPart(args, nodeName, join, logger).catch(failedStart) : undefined;
    const keyFile = args['gossip-key-file'] ?? k8s?.keyFile;
    const key = keyFile ? await loadGossipKeyring(keyFile).catch(failedStart) : undefined;
    for (const warning of key?.warnings ?? []) logger.warn({ event: warning.event, file: keyFile }, warning.message);
    const keyring = key?.keyring;
    if (!keyring)
      logger.warn({ event: 'gossipUnencrypted' }, 'no --gossip-key-file: gossip travels in plain text and anyone on the network can join');
    const leftovers = await ensureStateDir(args['state-dir']).catch(failedStart);
    if (leftovers.length > 0)
      logger.info(
        { event: 'stateTempFilesRemoved', files: leftovers },
        'removed temporary files an interrupted write left under --state-dir',
      );
    const checkUser = args['health-check-user'];
    const healthCheckRunAs = checkUser === undefined ? undefined : await healthCheckUser(checkUser, logger).catch(failedStart);
    // An unknown socket group is said before this node joins the cluster (not after, which peers would see as a flap).
    const socketGroup = args['control-socket-group'];
    if (socketGroup) await resolveSocketGroup(socketGroup).catch(failedStart);

    const speaker = assembleSpeaker({
      // Reloads of a large file are parsed on a worker thread: it must not stall gossip or BFD while it is read; a
      // small one in-process, faster than a worker starts (size-chosen-parser.ts). The first load is parsed
      // in-process: nothing runs yet, and a worker would only add its start-up.
      nodeName,
      ...(configFile === undefined ? {} : { configFile }),
      ...(args.kubernetes ? { kubernetes: kubernetesModeOptions(args) } : {}),
      configParser: sizeChosenParser(parseInProcess, workerParser()),
      firstConfigParser: parseInProcess,
      maxConfigBytes: maxBytes,
      bind,
      ...(advertise ? { advertiseHost: advertise } : {}),
      join: k8s?.join ?? join,
      ...(k8s ? { kubernetesSpeaker: k8s } : {}),
      keyring,
      stateDir: args['state-dir'],
      nodeLabels,
      gossipConfig: SWIM_PROFILES[args['gossip-profile']],
      profileName: args['gossip-profile'],
      logger,
      announce: args.announce,
      ...(args.announce && args['bind-vips'] ? { vipInterface: args['vip-interface'] } : {}),
      controlSocket: args['control-socket'],
      ...(socketGroup ? { controlSocketGroup: socketGroup } : {}),
      version: buildInfo().version,
      release: releaseText(buildInfo()),
      ...(healthCheckRunAs ? { healthCheckRunAs } : {}),
      ...ignoreExcludeLbSetting(args),
    });
    // Metrics listen before the speaker starts: a taken port fails the start before this node joins the cluster
    // (not after, which the others would see as a flap), and owner changes from the first election on are
    // counted. Scrapes get 503 until the speaker has started.
    let running = false;
    metrics = metricsBind
      ? await (async () => {
          // Loaded only when asked for: prom-client would add tens of milliseconds to every `mlb` start.
          const { startMetricsServer } = await import('../../daemon/metrics');
          return startMetricsServer({ bind: metricsBind, source: speaker, logger, ready: () => running });
        })().catch(failedStart)
      : undefined;
    // Signals are taken before start-up finishes: a SIGTERM during the first join must still leave politely
    // and keep what was learnt, not kill the process with the default action.
    const stopped = new Promise<void>((resolve, reject) => {
      const stop = (signal: string) => {
        logger.info({ event: 'shutdown', signal }, `${signal}: leaving the cluster`);
        void started
          .catch(() => undefined)
          .then(() => speaker.stop())
          .then(resolve, (error: Error) => reject(new CommandError(error.message, 'stopIncomplete')));
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    // A bug must not end the process silently: say what it was in the log (JSON, where operators look), then exit 1
    // as Node would. Without this, an exception in a timer showed up only as a bare exit code.
    const fatal = (kind: string) => (error: unknown) => {
      logger.fatal(
        { event: 'internalError', kind, error: error instanceof Error ? error.stack : String(error) },
        `internal error (${kind}): exiting`,
      );
      process.exit(ExitCode.failure);
    };
    process.on('uncaughtException', fatal('uncaughtException'));
    process.on('unhandledRejection', fatal('unhandledRejection'));
    const started = speaker.start();
    try {
      await started.catch(failedStart);
      running = true;
      await stopped;
    } finally {
      await metrics?.close();
      await k8s?.close();
    }
  },
};

/** --health-check-user: the user looked up and the switch to it proven once, before anything starts. */
async function healthCheckUser(name: string, logger: Logger): Promise<RunAs> {
  const runAs = await resolveRunAs(name);
  await checkRunAs(runAs);
  logger.info(
    { event: 'healthCheckUser', user: runAs.user, uid: runAs.uid, gid: runAs.gid },
    `exec: health checks run as ${runAs.user} (uid ${runAs.uid}, gid ${runAs.gid})`,
  );
  return runAs;
}

function parseOrUsage<T>(parse: () => T, flag: string): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

/**
 * A known failure at start-up (bad key file, unusable state dir, invalid config, a failed start step) as exit 1
 * with its message; anything else (a bug) is kept as it is, so main prints its stack.
 */
function toCommandError(error: unknown): unknown {
  if (error instanceof ConfigLoadError) {
    return new CommandError(`${error.message}:\n${error.diagnostics.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`, error.code);
  }
  const e = error as Error & { code?: unknown };
  if (typeof e?.code === 'string') return new CommandError(e.message, e.code);
  return error;
}
