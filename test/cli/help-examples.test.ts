/**
 * Examples in `mlb COMMAND --help` are printed whole: each example's command alone on its line, however long, and
 * its description on the line after, so what a user copies is the command. yargs' two-column layout wrapped long
 * commands into the description column.
 */
import { describe, expect, it } from 'vitest';
import { runMlbInProcess } from './run-cli';

/** Every command and subcommand with examples, and one long example each must keep whole. */
const CASES: [string[], string, string][] = [
  [
    ['daemon'],
    'mlb daemon --config /etc/mlb/mlb.yaml --node-name node-a --gossip-bind 10.0.0.11:7946 --join 10.0.0.12:7946,10.0.0.13:7946',
    'one host of three',
  ],
  [['explain'], 'mlb explain --config examples/plain-host.yaml --nodes node-a,node-b,node-c', 'every service IP, offline'],
  [['status'], "mlb status --json | jq '.services[] | {service, owner}'", 'for a script'],
  [['lab', 'up'], 'sudo mlb lab up --bgp', 'the same with an FRR router: sudo ip netns exec mlb-lab-client curl http://172.31.214.10/'],
  [['check'], '/usr/local/bin/mlb check --socket /run/mlb/mlb.sock', 'as a Nagios/Icinga command (the user needs access to the socket)'],
];

describe('examples in --help', () => {
  it.each(CASES)('mlb %s --help prints "%s" whole, its description under it', async (words, command, description) => {
    const run = await runMlbInProcess([...words, '--help']);
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    const at = lines.indexOf(`  ${command}`);
    expect(at, run.stdout).toBeGreaterThan(lines.indexOf('Examples:'));
    expect(lines[at + 1]).toBe(`      ${description}`);
  });

  it("wraps a long description under the command, never beside it, within the help's width", async () => {
    const lines = (await runMlbInProcess(['lab', 'up', '--help'])).stdout.split('\n');
    const examples = lines.slice(lines.indexOf('Examples:') + 1, lines.indexOf('', lines.indexOf('Examples:')));
    expect(examples.filter((l) => !l.startsWith('  sudo mlb ')).every((l) => l.startsWith('      '))).toBe(true);
    expect(examples.filter((l) => l.length > 100)).toEqual([]);
  });

  it("leaves the rest of the help as it was: a usage error still exits 2 with the command's hint", async () => {
    const run = await runMlbInProcess(['explain', '--bogus']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Run "mlb explain --help" for the options.');
  });
});
