/** The TUI's height plan (pure): it always fits, and the important parts get lines first. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planScreen, windowStart } from '../../../src/cli/tui/screen-plan';

describe('planScreen', () => {
  it('never plans more lines than the terminal has (one kept free) or than a section wants', () => {
    const size = fc.nat({ max: 60 });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 80 }),
        fc.nat({ max: 12 }),
        fc.record({ services: size, details: size, conflicts: size, members: size, events: size }),
        (height, fixed, wants) => {
          const plan = planScreen(height, fixed, wants);
          const used = plan.services + plan.details + plan.conflicts + plan.members + plan.events;
          expect(used).toBeLessThanOrEqual(Math.max(0, height - 1 - fixed));
          for (const k of Object.keys(wants) as (keyof typeof wants)[]) expect(plan[k]).toBeLessThanOrEqual(wants[k]);
        },
      ),
    );
  });

  it('gives a few service rows, the details, conflicts and members their lines before more services and events', () => {
    expect(planScreen(30, 6, { services: 40, details: 5, conflicts: 3, members: 6, events: 10 })).toEqual({
      services: 9,
      details: 5,
      conflicts: 3,
      members: 6,
      events: 0,
    });
    expect(planScreen(30, 6, { services: 2, details: 0, conflicts: 0, members: 5, events: 20 })).toEqual({
      services: 2,
      details: 0,
      conflicts: 0,
      members: 5,
      events: 16,
    });
    expect(planScreen(8, 6, { services: 40, details: 5, conflicts: 3, members: 6, events: 10 })).toEqual({
      services: 1,
      details: 0,
      conflicts: 0,
      members: 0,
      events: 0,
    });
  });
});

describe('windowStart', () => {
  it('keeps the selected row in view', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100 }), fc.nat({ max: 100 }), fc.integer({ min: 1, max: 30 }), (count, pick, size) => {
        const selected = count === 0 ? 0 : pick % count;
        const start = windowStart(count, selected, size);
        expect(start).toBeGreaterThanOrEqual(0);
        if (count > 0) {
          expect(selected).toBeGreaterThanOrEqual(start);
          expect(selected).toBeLessThan(start + Math.min(size, count));
          expect(start + Math.min(size, count)).toBeLessThanOrEqual(count);
        }
      }),
    );
  });
});
