/**
 * `mlb controller`: MetalLB's controller for a Kubernetes cluster (Deployment `controller`, one replica). It
 * allocates Service addresses with the file mode's allocator and writes them where MetalLB does: the Service's
 * status and metallb.io/ip-allocated-from-pool annotation, Events, IPAddressPool status, ConfigurationState
 * `controller`, and the memberlist Secret the speakers mount.
 */
import { readFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { createLogger, DEFAULT_LOG_LEVEL, LOG_LEVELS, type LogLevel } from '../../daemon/logger';
import { type HostPort, parseHostPort } from '../../gossip/transport/address';
import { DEFAULT_METALLB_NAMESPACE } from '../../model';
import { CommandError, UsageError } from '../exit-codes';

interface ControllerArgs {
  kubeconfig?: string;
  namespace?: string;
  'lb-class'?: string;
  'metrics-bind': string;
  'health-bind': string;
  'log-level': LogLevel;
}

/** MetalLB v0.15's plain-HTTP metrics port, kept by mlb's manifests (v0.16 moved to HTTPS 9120). */
const CONTROLLER_METRICS_PORT = 7472;
/** controller-runtime's health probe port in MetalLB (internal/k8s DefaultHealthProbePort). */
const CONTROLLER_HEALTH_PORT = 17472;
/** Where a pod finds its own namespace (the service account mount). */
const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
/** MetalLB's defaults for its environment (config/controllers/controller.yaml). */
const DEFAULT_SECRET_NAME = 'memberlist';
const DEFAULT_DEPLOYMENT = 'controller';

/** --namespace, else METALLB_NAMESPACE, else the pod's own namespace, else metallb-system. */
function resolveNamespace(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return flag;
  if (env['METALLB_NAMESPACE']) return env['METALLB_NAMESPACE'];
  try {
    const own = readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim();
    if (own !== '') return own;
  } catch {
    // Not in a pod: the default below.
  }
  return DEFAULT_METALLB_NAMESPACE;
}

function bindOption(text: string, flag: string, port: number): HostPort {
  try {
    return parseHostPort(text, port);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

export const controllerCommand: CommandModule<object, ControllerArgs> = {
  command: 'controller',
  describe: "Run MetalLB's controller in a Kubernetes cluster: allocate LoadBalancer Service IPs from IPAddressPools",
  builder: (y) =>
    y
      .option('kubeconfig', {
        type: 'string',
        describe: "Kubeconfig file; default $KUBECONFIG, else the pod's service account (in-cluster)",
      })
      .option('namespace', {
        type: 'string',
        describe: `Where the metallb.io objects live; default $METALLB_NAMESPACE, else the pod's namespace, else ${DEFAULT_METALLB_NAMESPACE}`,
      })
      .option('lb-class', {
        type: 'string',
        describe: 'Handle only Services with this spec.loadBalancerClass; without it, only Services with none (as MetalLB)',
      })
      .option('metrics-bind', {
        type: 'string',
        default: `0.0.0.0:${CONTROLLER_METRICS_PORT}`,
        describe: 'HOST:PORT for Prometheus metrics (plain HTTP, GET /metrics)',
      })
      .option('health-bind', {
        type: 'string',
        default: `0.0.0.0:${CONTROLLER_HEALTH_PORT}`,
        describe: 'HOST:PORT for the probes: GET /healthz (alive), /readyz (every cache listed and reconciled once)',
      })
      .option('log-level', { choices: LOG_LEVELS, default: DEFAULT_LOG_LEVEL, describe: 'Least severe level logged' })
      .example('mlb controller --kubeconfig ~/.kube/config --namespace metallb-system', 'run outside the cluster, against it')
      .example('mlb controller --lb-class mlb.io/lb', 'share a cluster with another load balancer: handle only this class')
      .epilogue(
        'In the cluster it runs as the Deployment "controller" with the service account "controller" (see deploy/). ' +
          'Each Service gets status.loadBalancer.ingress and the metallb.io/ip-allocated-from-pool annotation through the ' +
          'services/status subresource, and Events from "metallb-controller" with the reasons MetalLB gives: `kubectl describe svc NAME` ' +
          'shows why a Service has no IP. Addresses are the ones `mlb validate`/`mlb explain` give the same objects in a file. ' +
          'Environment as MetalLB: METALLB_ML_SECRET_NAME (memberlist), METALLB_DEPLOYMENT (controller), METALLB_POD_NAME. ' +
          'SIGTERM or SIGINT stops it cleanly (exit 0).',
      ),
  handler: async (args) => {
    const metricsBind = bindOption(args['metrics-bind'], '--metrics-bind', CONTROLLER_METRICS_PORT);
    const healthBind = bindOption(args['health-bind'], '--health-bind', CONTROLLER_HEALTH_PORT);
    const env = process.env;
    const namespace = resolveNamespace(args.namespace, env);
    const logger = createLogger({ level: args['log-level'], base: { component: 'controller' } });
    // Loaded here, not at the top: client-node takes seconds to load and no other command needs it.
    const [{ MetalLBController }, { startControllerHttp }, { kubeClient, loadKubeConfig }] = await Promise.all([
      import('../../controller/controller-loop'),
      import('../../controller/controller-http'),
      import('../../sources/k8s/api/kube-client'),
    ]);
    let client;
    try {
      client = kubeClient(await loadKubeConfig(args.kubeconfig, env));
    } catch (error) {
      throw new CommandError((error as Error).message, 'kubeconfig');
    }
    const controller = new MetalLBController({
      client,
      namespace,
      secretName: env['METALLB_ML_SECRET_NAME'] || DEFAULT_SECRET_NAME,
      deploymentName: env['METALLB_DEPLOYMENT'] || DEFAULT_DEPLOYMENT,
      ...(env['METALLB_POD_NAME'] && { podName: env['METALLB_POD_NAME'] }),
      ...(args['lb-class'] && { lbClass: args['lb-class'] }),
      log: logger,
    });
    const http = await startControllerHttp(metricsBind, healthBind, controller).catch((error: Error) => {
      throw new CommandError(`cannot listen: ${error.cause instanceof Error ? error.cause.message : error.message}`, 'bindFailed');
    });
    const stopped = new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    logger.info(
      { event: 'startUpdate', namespace, lbClass: args['lb-class'] ?? '', server: client.server, metrics: metricsBind, health: healthBind },
      `controller starting: namespace ${namespace}, API server ${client.server}`,
    );
    controller.start();
    const signal = await stopped;
    logger.info({ event: 'shutdown', signal }, `${signal}: stopping`);
    await controller.stop();
    await http.close();
  },
};
