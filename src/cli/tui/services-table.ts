/**
 * The service IP table: one row per IP with its holders, the selected row marked ">" and drawn inverse; an IP
 * nobody holds or another MAC also answers for is red, a failing health check yellow.
 */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { FittedTable, ServiceRow } from './status-rows';

export interface ServicesTableProps {
  readonly table: FittedTable;
  readonly rows: readonly ServiceRow[];
  /** The selected row's index in `rows`, -1 for none. */
  readonly selected: number;
  /** The visible window: rows start .. start+count-1. */
  readonly start: number;
  readonly count: number;
  /** Shown instead of rows when there are none. */
  readonly empty: string;
}

export function ServicesTable({ table, rows, selected, start, count, empty }: ServicesTableProps): ReactElement {
  const visible = rows.slice(start, start + count).map((row, offset) => {
    const index = start + offset;
    const isSelected = index === selected;
    const color = row.nobody || row.conflict ? 'red' : row.healthFailing ? 'yellow' : undefined;
    return h(
      Text,
      { key: row.key, color, inverse: isSelected, wrap: 'truncate-end' },
      `${isSelected ? '> ' : '  '}${table.lines[index] ?? ''}`,
    );
  });
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true, wrap: 'truncate-end' }, `  ${table.header}`),
    ...(rows.length === 0 && count > 0 ? [h(Text, { key: 'empty', dimColor: true, wrap: 'truncate-end' }, `  ${empty}`)] : visible),
  );
}
