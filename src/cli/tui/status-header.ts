/**
 * The TUI's first lines: this node, the cluster's size and health, the configuration (stale in red with its
 * first errors; members whose files differ in yellow), and, while the daemon cannot be read, "disconnected, retrying" in red.
 */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { truncate } from '../text/truncate';
import type { HeaderModel } from './status-rows';

export interface StatusHeaderProps {
  readonly model: HeaderModel;
  readonly connected: boolean;
  readonly problem: string | null;
  readonly width: number;
}

/** "cluster " and friends: the values start in one column. */
const KEY_WIDTH = 9;

export function StatusHeader({ model, connected, problem, width }: StatusHeaderProps): ReactElement {
  const line = (key: string, value: string) => truncate(`${key.padEnd(KEY_WIDTH)}${value}`, width);
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true, wrap: 'truncate-end' }, line('node', model.node)),
    h(Text, { color: model.healthy ? 'green' : 'red', wrap: 'truncate-end' }, line('cluster', `${model.cluster}, ${model.health}`)),
    h(Text, { color: model.configStale ? 'red' : undefined, wrap: 'truncate-end' }, line('config', model.config)),
    ...model.configErrors.map((error, i) => h(Text, { key: `error-${i}`, color: 'red', wrap: 'truncate-end' }, line('', `- ${error}`))),
    model.configDivergence === null ? null : h(Text, { color: 'yellow', wrap: 'truncate-end' }, line('', model.configDivergence)),
    connected
      ? null
      : h(
          Text,
          { color: 'red', bold: true, wrap: 'truncate-end' },
          truncate(`disconnected, retrying: ${problem ?? 'the daemon does not answer'}`, width),
        ),
  );
}
