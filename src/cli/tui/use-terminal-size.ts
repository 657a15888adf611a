/**
 * The terminal's size as a React hook: the TUI cuts every line to the width and plans its sections for the
 * height, and redraws when the window is resized.
 */
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';
import { STATUS_DEFAULT_WIDTH } from '../text/default-width';

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** A VT100's height, for an output that reports none (a test's fake terminal). */
const DEFAULT_TERMINAL_ROWS = 24;

export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({ columns: stdout.columns || STATUS_DEFAULT_WIDTH, rows: stdout.rows || DEFAULT_TERMINAL_ROWS });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const resized = () => setSize(read());
    stdout.on('resize', resized);
    return () => {
      stdout.off('resize', resized);
    };
  }, [stdout]);
  return size;
}
