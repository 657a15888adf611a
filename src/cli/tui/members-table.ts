/** The members: state, labels, and flags (self, metallb, draining, warming-up); suspect in yellow, dead in red. */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { MemberTable } from './status-rows';

export interface MembersTableProps {
  readonly table: MemberTable;
  /** Member lines that fit; the rest are left out (`mlb status --once` lists them all). */
  readonly count: number;
}

const STATE_COLOR: Record<string, string | undefined> = { suspect: 'yellow', dead: 'red', left: 'gray' };

export function MembersTable({ table, count }: MembersTableProps): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true, wrap: 'truncate-end' }, table.header),
    ...table.lines
      .slice(0, count)
      .map((line, i) => h(Text, { key: i, color: STATE_COLOR[table.states[i] ?? ''], wrap: 'truncate-end' }, line)),
  );
}
