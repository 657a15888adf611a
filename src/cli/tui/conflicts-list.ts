/**
 * Conflicts, in red: another MAC answers for an IP a node announces (split brain, or the IP taken elsewhere), each
 * with the node that saw it.
 */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { truncate } from '../text/truncate';

export function ConflictsList({ lines, width }: { readonly lines: readonly string[]; readonly width: number }): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      { color: 'red', bold: true, wrap: 'truncate-end' },
      truncate('CONFLICTS: another MAC answers for an IP a node announces (mlb arping IP)', width),
    ),
    ...lines.map((line, i) => h(Text, { key: i, color: 'red', wrap: 'truncate-end' }, line)),
  );
}
