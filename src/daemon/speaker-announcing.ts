/**
 * Opens what the speaker announces with: ARP/NDP answering, VIP binding and the self-check (one layer-2 part
 * from the speaker's factories), the BGP sessions, and the local announcements that drive them; or, with
 * --no-announce, the same bookkeeping driving nothing. Fills `opened` as each part opens, so a failure leaves
 * the failed start's close with exactly what is open.
 */
import type { Logger } from 'pino';
import type { EventLog } from './daemon-events';
import { LocalAnnouncements } from './local-announcements';
import { linkMacs } from './node-facts';
import type { OpenedParts } from './opened-parts';
import type { LayerTwoHooks, SpeakerParts } from './speaker-parts';

export interface AnnouncingOptions {
  /** False (--no-announce): compute and report only, touching no interface. */
  readonly announce: boolean;
  /** The dummy interface VIPs are bound to (mlb0); its MAC is not published. */
  readonly vipInterface?: string;
  readonly parts: SpeakerParts;
  readonly opened: OpenedParts;
  readonly logger: Logger;
  readonly events: EventLog;
  readonly hooks: LayerTwoHooks;
  /** The MACs this node publishes in its meta changed (a new or changed link). */
  readonly macsChanged: () => void;
}

export async function openAnnouncing(options: AnnouncingOptions): Promise<void> {
  const { parts, opened, logger, events } = options;
  if (!options.announce) {
    logger.warn({ event: 'announcingOff' }, '--no-announce: electing and reporting only; no ARP/NDP answers, no VIP binding');
    opened.announcements = new LocalAnnouncements(undefined, undefined, logger, parts.runtime);
    return;
  }
  const { links, announcer, vips, selfCheck } = await parts.openLayerTwo(options.hooks);
  opened.links = links;
  opened.l2 = announcer;
  opened.vips = vips;
  opened.selfCheck = selfCheck;
  opened.bgp = parts.openBgp();
  let publishedMacs = linkMacs(links, options.vipInterface)?.join(',');
  links.onChange(() => {
    const macs = linkMacs(links, options.vipInterface)?.join(',');
    if (macs === publishedMacs) return;
    publishedMacs = macs;
    options.macsChanged();
  });
  const conflictEvent =
    (type: 'conflict' | 'conflictCleared') => (c: { ip: string; mac: string; node: string | null; interface: string }) =>
      events.record({ type, ip: c.ip, mac: c.mac, node: c.node, interface: c.interface });
  selfCheck?.on('conflict', conflictEvent('conflict'));
  selfCheck?.on('conflictCleared', conflictEvent('conflictCleared'));
  opened.announcements = new LocalAnnouncements(
    {
      reconcileL2: (d) => void announcer.reconcile(d),
      answerAhead: (d) => announcer.answerAhead?.(d),
      ...(vips ? { bindVips: async (ips, onBound) => void (await vips.reconcile(ips, onBound)) } : {}),
    },
    links,
    logger,
    parts.runtime,
  );
}
