/** Recent events from the daemon's stream, newest last; alarms (a failed member, a conflict, a stale config) in red. */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { EventText } from './event-text';

export function EventsList({ lines }: { readonly lines: readonly EventText[] }): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true }, 'RECENT EVENTS'),
    ...(lines.length === 0
      ? [h(Text, { key: 'none', dimColor: true }, 'none yet')]
      : lines.map((l, i) => h(Text, { key: i, color: l.alarm ? 'red' : undefined, wrap: 'truncate-end' }, l.text))),
  );
}
