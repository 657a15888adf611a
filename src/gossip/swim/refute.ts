import type { Alive } from '../messages';
import { applyHealthDelta, HealthDelta } from './awareness';
import { broadcast, bump, selfMember, type Draft } from './draft';

/**
 * Someone says we are suspect, dead, or alive with other meta (memberlist refute): take an incarnation above
 * both our own and the accusation's, count it against our health (we may be the slow one), and broadcast
 * ourselves alive with it. Called only for our own name.
 */
export function refute(d: Draft, accusedIncarnation: number): void {
  const me = selfMember(d);
  if (!me) return;
  let incarnation = (d.incarnation + 1) >>> 0;
  if (accusedIncarnation >= incarnation) incarnation = (accusedIncarnation + 1) >>> 0;
  d.incarnation = incarnation;
  d.members.set(me.name, { ...me, incarnation });
  d.health = applyHealthDelta(d.health, HealthDelta.refuted, d.config.awarenessMaxMultiplier);
  bump(d, 'refutations');
  const alive: Alive = {
    type: 'alive',
    incarnation,
    node: me.name,
    addr: me.addr,
    port: me.port,
    ...(me.meta === undefined ? {} : { meta: me.meta }),
    vsn: me.vsn,
  };
  broadcast(d, me.name, alive);
}
