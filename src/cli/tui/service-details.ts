/** The selected IP's live explanation under the service table (Enter): every candidate with its reason. */
import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { DetailLine, DetailTone } from './explain-lines';

const TONE_COLOR: Record<DetailTone, string | undefined> = {
  title: 'cyan',
  owner: 'green',
  eligible: undefined,
  ineligible: 'yellow',
  problem: 'red',
  note: 'gray',
};

export function ServiceDetails({ lines }: { readonly lines: readonly DetailLine[] }): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    ...lines.map((l, i) => h(Text, { key: i, color: TONE_COLOR[l.tone], bold: l.tone === 'title', wrap: 'truncate-end' }, l.text)),
  );
}
