/**
 * What `mlb lab up` leaves in <dir>/lab.json for the commands that come later (`down`, `demo`, tests attaching
 * to a running lab): how the lab was built and the pids it started. The plan itself is recomputed from name,
 * dir and node count, so it never disagrees with the code that reads it.
 */
import { readJSONState, writeFileAtomic } from '../../daemon/state-dir';
import type { SwimProfileName } from '../../gossip/swim/config';

export const LAB_STATE_VERSION = 1;

export interface LabProcesses {
  daemon?: number;
  server?: number;
}

export interface LabState {
  readonly version: typeof LAB_STATE_VERSION;
  readonly name: string;
  readonly dir: string;
  readonly nodes: number;
  /** The mlb command (argv prefix) the lab starts daemons and servers with. */
  readonly mlbCommand: readonly string[];
  readonly gossipProfile?: SwimProfileName;
  /** Built with --bgp: a router namespace running FRR, and BGP objects in the configuration. */
  readonly bgp?: boolean;
  /** building: up() has not finished (a crash here leaves something for down() to clean). */
  readonly phase: 'building' | 'up';
  /** By node name. */
  readonly processes: Readonly<Record<string, LabProcesses>>;
}

function isLabState(value: unknown): value is LabState {
  const v = value as Partial<LabState> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.version === LAB_STATE_VERSION &&
    typeof v.name === 'string' &&
    typeof v.dir === 'string' &&
    typeof v.nodes === 'number' &&
    Array.isArray(v.mlbCommand) &&
    v.mlbCommand.every((a) => typeof a === 'string') &&
    (v.bgp === undefined || typeof v.bgp === 'boolean') &&
    (v.phase === 'building' || v.phase === 'up') &&
    typeof v.processes === 'object' &&
    v.processes !== null
  );
}

export function readLabState(file: string): Promise<LabState | undefined> {
  return readJSONState(file, isLabState);
}

export function writeLabState(file: string, state: LabState): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}
