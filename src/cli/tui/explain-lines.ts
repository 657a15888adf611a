/**
 * The details of the selected service IP (Enter in the TUI): the daemon's live explanation, every candidate in
 * hash order with its reason, as `mlb explain` gives it. Pure: the lines come from the row and what
 * GET /v1/explain?ip= answered; the component only colours them.
 */
import type { Explanation } from '../../election';
import { truncate } from '../text/truncate';
import { candidateText } from '../reason-text';
import type { ServiceRow } from './status-rows';

/** What the TUI knows of one IP's explanation: asked and not answered yet, answered, or failed. */
export interface ExplainState {
  readonly ip: string;
  /** null until the daemon answers. */
  readonly explanations: readonly Explanation[] | null;
  /** Why asking failed, null otherwise. */
  readonly problem: string | null;
}

export type DetailTone = 'title' | 'owner' | 'eligible' | 'ineligible' | 'problem' | 'note';

export interface DetailLine {
  readonly text: string;
  readonly tone: DetailTone;
}

const INDENT = '  ';
/** "#12" fits; a cluster with a thousand eligible nodes still aligns on the node names below. */
const RANK_WIDTH = 4;

export function detailLines(row: ServiceRow, state: ExplainState | null, width: number): DetailLine[] {
  const line = (text: string, tone: DetailTone): DetailLine => ({ text: truncate(text, width), tone });
  if (row.ip === null) {
    return [line(`${row.service}: no IP`, 'title'), line(`${INDENT}${row.allocationProblem ?? 'no IP allocated yet'}`, 'problem')];
  }
  const title = `${row.service} ${row.ip} ${row.protocol}`;
  if (state === null || state.ip !== row.ip) return [line(title, 'title'), line(`${INDENT}asking the daemon...`, 'note')];
  if (state.problem !== null) return [line(title, 'title'), line(`${INDENT}cannot explain: ${state.problem}`, 'problem')];
  if (state.explanations === null) return [line(title, 'title'), line(`${INDENT}asking the daemon...`, 'note')];
  const mine = state.explanations.filter((e) => e.service === row.service && e.protocol === row.protocol);
  if (mine.length === 0) return [line(title, 'title'), line(`${INDENT}the daemon has not elected anyone for this IP yet`, 'note')];
  return mine.flatMap((e) => explanationLines(e, width));
}

function explanationLines(e: Explanation, width: number): DetailLine[] {
  const line = (text: string, tone: DetailTone): DetailLine => ({ text: truncate(text, width), tone });
  const verdict =
    e.protocol === 'layer2'
      ? e.winner !== null
        ? `${e.winner} answers for it`
        : 'NOBODY answers for it'
      : e.announcing.length > 0
        ? `announced by ${e.announcing.join(',')}`
        : 'NOBODY announces it';
  const nodeWidth = Math.max(4, ...e.candidates.map((c) => c.node.length));
  const lines = [
    line(`${e.service} ${e.ip} ${e.protocol}: ${verdict}`, e.announcing.length > 0 ? 'title' : 'problem'),
    line(`${INDENT}${'RANK'.padEnd(RANK_WIDTH)}  ${'NODE'.padEnd(nodeWidth)}  REASON (every candidate, in hash order)`, 'note'),
  ];
  for (const c of e.candidates) {
    const rank = (c.rank === null ? '-' : `#${c.rank}`).padEnd(RANK_WIDTH);
    const tone: DetailTone = e.announcing.includes(c.node) ? 'owner' : c.eligible ? 'eligible' : 'ineligible';
    lines.push(line(`${INDENT}${rank}  ${c.node.padEnd(nodeWidth)}  ${c.reason}: ${candidateText(e, c)}`, tone));
  }
  if (e.candidates.length === 0) lines.push(line(`${INDENT}no node is known`, 'problem'));
  return lines;
}
