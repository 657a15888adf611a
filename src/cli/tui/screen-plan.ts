/**
 * How many lines each part of the TUI gets, so the whole screen fits the terminal's height: Ink redraws by
 * moving the cursor up over its last frame, and a frame taller than the terminal scrolls and flickers. Pure.
 * What an operator needs first gets lines first: a few service IPs, the open details, conflicts, the members,
 * then the rest of the services, and recent events fill whatever is left.
 */

export interface SectionSizes {
  readonly services: number;
  readonly details: number;
  readonly conflicts: number;
  readonly members: number;
  readonly events: number;
}

/** Service rows shown before anything else gets a line: enough to see the selection and its neighbours. */
const FIRST_SERVICE_ROWS = 3;
/** Ink's frame must stay below the terminal's height (a frame as tall as the screen is redrawn from scratch). */
const FRAME_MARGIN_LINES = 1;

/** Lines per section out of `height`, after `fixedLines` (header, titles, footer); never more than wanted. */
export function planScreen(height: number, fixedLines: number, wants: SectionSizes): SectionSizes {
  let left = Math.max(0, height - FRAME_MARGIN_LINES - fixedLines);
  const take = (want: number) => {
    const got = Math.min(Math.max(0, want), left);
    left -= got;
    return got;
  };
  const firstServices = take(Math.min(wants.services, FIRST_SERVICE_ROWS));
  const details = take(wants.details);
  const conflicts = take(wants.conflicts);
  const members = take(wants.members);
  const services = firstServices + take(wants.services - firstServices);
  const events = take(wants.events);
  return { services, details, conflicts, members, events };
}

/** The first of `size` consecutive rows out of `count` that keeps row `selected` in view, near the middle. */
export function windowStart(count: number, selected: number, size: number): number {
  if (size <= 0 || count <= size) return 0;
  return Math.min(Math.max(0, selected - Math.floor(size / 2)), count - size);
}
