/**
 * The last line: the keys, or the filter being typed; how many service IPs the filter keeps and which part of a
 * long list is on screen.
 */
import { createElement as h, type ReactElement } from 'react';
import { Text } from 'ink';
import { truncate } from '../text/truncate';
import type { ViewState } from './view-state';

export interface KeyHelpProps {
  readonly view: ViewState;
  /** Rows the filter keeps, and all rows. */
  readonly shown: number;
  readonly total: number;
  /** The visible window of the kept rows (1-based first, last), null when all fit. */
  readonly window: { readonly first: number; readonly last: number } | null;
  readonly width: number;
}

/** The footer's text, pure (tests read it without Ink). */
export function keyHelpText({ view, shown, total, window }: Omit<KeyHelpProps, 'width'>): string {
  if (view.editingFilter) return `filter: ${view.filter}_  (${shown} of ${total})  Enter keep  Esc clear`;
  const range = window ? `${window.first}-${window.last} of ${shown}  ` : '';
  const keys = `up/down select  Enter ${view.detailsOpen ? 'hide' : 'why'}  / filter  q quit`;
  if (view.filter === '') return `${range}${keys}`;
  return `"${view.filter}": ${shown} of ${total}  ${range}Esc clear  ${keys}`;
}

export function KeyHelp(props: KeyHelpProps): ReactElement {
  return h(
    Text,
    { dimColor: !props.view.editingFilter, color: props.view.editingFilter ? 'cyan' : undefined, wrap: 'truncate-end' },
    truncate(keyHelpText(props), props.width),
  );
}
