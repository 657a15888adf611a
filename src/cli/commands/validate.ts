import type { CommandModule } from 'yargs';
import { formatIP } from '../../ip';
import { formatDiagnostic } from '../../model';
import type { AllocateServicesOutput, AllocationResult } from '../../allocator';
import { diagnosticJSON, maxConfigBytes, maxConfigBytesOption, readConfig } from '../config-input';
import { allocate } from '../offline-cluster';
import { ExitCode } from '../exit-codes';
import { renderTable } from '../render-table';
import { configFromArguments, configOption } from '../config-argument';
import { isStructured, outputFormat, outputOption } from '../output-format';
import { printStructured } from '../structured-output';
import { poolUsageTable } from '../pool-usage-table';
import { servicesWithoutIPLine, validateFindings, type ValidateFindings } from '../validate-findings';
import { type ClusterArgs, clusterChoice, clusterOptions } from '../cluster/cluster-options';
import { readClusterConfig } from '../cluster/validate-cluster';

interface ValidateArgs extends ClusterArgs {
  file?: string;
  config?: string;
  json: boolean;
  output?: string;
  'max-config-bytes': number;
  'node-name'?: string;
}

export const validateCommand: CommandModule<object, ValidateArgs> = {
  command: 'validate [file]',
  describe: 'Check a configuration file and show the IP each service would get',
  builder: (y) =>
    y
      .positional('file', { type: 'string', describe: 'The configuration, as --config' })
      .option(
        'config',
        configOption(
          'The YAML file (metallb.io objects, v1 Services and v1 Nodes); a directory: its *.yaml and *.yml files in name order; -: standard input',
        ),
      )
      .option('json', { type: 'boolean', default: false, describe: 'Print {valid, errors, warnings, notes, services, pools} as JSON' })
      .option('output', outputOption("the pools' usage too"))
      .option('max-config-bytes', maxConfigBytesOption)
      .option('node-name', {
        type: 'string',
        describe: "This host's mlb daemon --node-name: warn when the file lists Nodes but none of that name",
      })
      .options(clusterOptions('Validate the metallb.io objects, LoadBalancer Services and Nodes'))
      .example('mlb validate /etc/mlb/mlb.yaml', 'errors as file:line:column, then the allocation')
      .example('mlb validate -f /etc/mlb/conf.d -o yaml', 'a directory of files as one configuration, as YAML')
      .example('generate-config | mlb validate -', 'from standard input (diagnostics say <stdin>:line:column)')
      .example(
        'kubectl get ipaddresspools,l2advertisements,svc,nodes -A -o yaml | mlb validate -',
        "a cluster's objects as kubectl prints them",
      )
      .example('mlb validate --kubeconfig ~/.kube/config', "the live cluster's configuration, each problem naming its object")
      .epilogue(
        'Exit 0 when the file is valid (warnings and notes allowed), 1 when it is not. On a plain host a service ' +
          "that cannot get an address is an error of the file: it is reported at the field to change, with MetalLB's " +
          'AllocationFailed text and a hint.',
      ),
  handler: async (args) => {
    const format = outputFormat(args);
    const cluster = clusterChoice(args, { file: args.file, config: args.config, 'node-name': args['node-name'] });
    const loaded = cluster
      ? await readClusterConfig(cluster)
      : await readConfig(configFromArguments(args.file, args.config, 'validate'), maxConfigBytes(args['max-config-bytes']));
    const allocation = loaded.snapshot ? allocate(loaded.snapshot) : undefined;
    const findings = validateFindings(loaded.diagnostics, loaded.snapshot, allocation, args['node-name']);
    const { errors, warnings } = findings;
    if (isStructured(format)) {
      printStructured(validationJSON(loaded.file, findings, allocation), format);
    } else {
      for (const d of findings.diagnostics) process.stdout.write(`${formatDiagnostic(d)}\n`);
      if (!loaded.snapshot) {
        process.stdout.write(`${loaded.file}: invalid: ${errors.length} error(s); nothing would change on a running daemon\n`);
      } else if (findings.servicesWithoutIP > 0) {
        process.stdout.write(`${servicesWithoutIPLine(loaded.file, findings.servicesWithoutIP)}\n`);
        if (allocation && allocation.results.size > 0) process.stdout.write(`\n${allocationTable(allocation)}`);
      } else {
        const s = loaded.snapshot;
        process.stdout.write(
          `${loaded.file}: valid (${s.pools.length} pools, ${s.l2Advertisements.length + s.bgpAdvertisements.length} advertisements, ` +
            `${s.bgpPeers.length} BGP peers, ${s.services.length} services, ${s.nodes.length} nodes; ${warnings.length} warning(s))\n`,
        );
        if (allocation && allocation.results.size > 0) process.stdout.write(`\n${allocationTable(allocation)}`);
        if (allocation && format === 'wide') process.stdout.write(`\n${poolUsageTable(allocation)}`);
      }
    }
    process.exitCode = errors.length === 0 ? ExitCode.ok : ExitCode.failure;
  },
};

function resultJSON(r: AllocationResult): Record<string, unknown> {
  switch (r.status) {
    case 'assigned':
      return { service: r.service, status: r.status, ips: r.ips.map(formatIP), pool: r.pool, reason: r.reason };
    case 'failed':
      return { service: r.service, status: r.status, code: r.code, error: r.error, event: r.event };
    case 'skipped':
      return { service: r.service, status: r.status, reason: r.reason, message: r.message };
  }
}

function validationJSON(file: string, findings: ValidateFindings, allocation?: AllocateServicesOutput): Record<string, unknown> {
  return {
    file,
    valid: findings.errors.length === 0,
    errors: findings.errors.map(diagnosticJSON),
    warnings: findings.warnings.map(diagnosticJSON),
    notes: findings.notes.map(diagnosticJSON),
    services: allocation ? [...allocation.results.values()].map(resultJSON) : [],
    pools: allocation
      ? allocation.usage.map((u) => ({
          pool: u.pool,
          total: u.total.toString(),
          inUse: u.inUse,
          availableIPv4: u.availableIPv4.toString(),
          availableIPv6: u.availableIPv6.toString(),
        }))
      : [],
  };
}

function allocationTable(allocation: AllocateServicesOutput): string {
  const rows = [...allocation.results.values()].map((r) => {
    switch (r.status) {
      case 'assigned':
        return [r.service, r.ips.map(formatIP).join(','), r.pool, r.reason];
      case 'failed':
        return [r.service, '-', '-', r.event];
      case 'skipped':
        return [r.service, '-', '-', `skipped: ${r.message}`];
    }
  });
  return renderTable(['SERVICE', 'IPS', 'POOL', 'WHY'], rows);
}
