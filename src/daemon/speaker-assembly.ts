/**
 * The real speaker of a plain host: the configuration file (watched), real sockets and clock, netlink links,
 * the L2 announcer on packet sockets, VIP binding on the dummy interface, the self-check's probes, BGP sessions,
 * gossip on a thread of its own and the control socket. `mlb daemon` starts what this returns; tests that need no host parts build a Speaker
 * with their own (speaker-parts.ts).
 */
import { BgpAnnouncer } from '../announce/bgp/bgp-announcer';
import { NetlinkLinks } from '../announce/l2/interfaces';
import { L2Announcer } from '../announce/l2/l2-announcer';
import { REAL_RUNTIME } from '../runtime';
import type { ConfigParser } from '../sources/file';
import { type KubernetesModeOptions, openConfigSource } from './config-source-choice';
import { ControlServer } from './control';
import { canStartGossipThread, ThreadedGossip, WarmGossipThread } from './gossip-thread/threaded-gossip';
import { GossipNode } from '../gossip/gossip-node';
import { interfacesFromLinks } from './self-check/link-interfaces';
import { SelfChecker } from './self-check/self-checker';
import { Speaker, type SpeakerOptions } from './speaker';
import type { LayerTwo, LayerTwoHooks, SpeakerParts } from './speaker-parts';
import { openVipBinding } from './vip-binding';
import type { KubernetesSpeaker } from './k8s/kubernetes-speaker';

export interface SpeakerAssemblyOptions extends SpeakerOptions {
  /** --config: a YAML file, or a directory of them (absent with --kubernetes). */
  readonly configFile?: string;
  /** Where the configuration is parsed (the daemon: a worker thread); default in-process. */
  readonly configParser?: ConfigParser;
  /** Where the first load is parsed (the daemon: in-process, as nothing runs yet); default configParser. */
  readonly firstConfigParser?: ConfigParser;
  /** --max-config-bytes; default DEFAULT_MAX_CONFIG_BYTES. */
  readonly maxConfigBytes?: number;
  /** --kubernetes: the configuration comes from the Kubernetes API instead of a file. */
  readonly kubernetes?: KubernetesModeOptions;
  /** --kubernetes: what the speaker writes to the API from its plans and configuration (k8s/kubernetes-speaker.ts). */
  readonly kubernetesSpeaker?: Pick<KubernetesSpeaker, 'onPlanned' | 'attachSource' | 'onRejoin'>;
}

export function assembleSpeaker(options: SpeakerAssemblyOptions): Speaker {
  const { configFile, configParser, firstConfigParser, maxConfigBytes, kubernetes, kubernetesSpeaker, ...settings } = options;
  const { logger } = settings;
  const configSource = openConfigSource({ configFile, configParser, firstConfigParser, maxConfigBytes, kubernetes }, logger);
  kubernetesSpeaker?.attachSource(configSource);
  // The gossip thread boots while the configuration is read (WarmGossipThread): the start waited for both in turn.
  const debug = logger.isLevelEnabled('debug');
  const warmGossip = canStartGossipThread() ? WarmGossipThread.begin() : undefined;
  const parts: SpeakerParts = {
    configSource,
    ...(kubernetesSpeaker && {
      onPlanned: (plan, answered) => kubernetesSpeaker.onPlanned(plan, answered),
      rejoinRequests: (rejoin) => kubernetesSpeaker.onRejoin(rejoin),
    }),
    runtime: REAL_RUNTIME,
    openLayerTwo: (hooks) => openHostLayerTwo(settings, hooks),
    openBgp: () => new BgpAnnouncer(logger, REAL_RUNTIME),
    // Gossip on a thread of its own: no decision, binding or log burst on this one can delay an ack.
    openGossip: ({ runtime: _real, ...options }) =>
      warmGossip ? ThreadedGossip.start({ ...options, debug, warm: warmGossip }) : GossipNode.create({ ...options, runtime: REAL_RUNTIME }),
    openControl: (provider) => {
      const group = settings.controlSocketGroup;
      return ControlServer.listen({ path: settings.controlSocket, provider, logger, ...(group === undefined ? {} : { group }) });
    },
  };
  return new Speaker(settings, parts);
}

/** Netlink links, the L2 announcer, the self-check and (with --vip-interface) VIP binding; undone on failure. */
async function openHostLayerTwo(settings: SpeakerOptions, hooks: LayerTwoHooks): Promise<LayerTwo> {
  const { logger, vipInterface } = settings;
  const links = await NetlinkLinks.start({ onError: (e: Error) => logger.warn({ event: 'linkScanFailed' }, e.message) });
  const announcer = new L2Announcer({ links, logger, onConflict: (c) => hooks.onConflict(c) });
  // Split-brain self-check: probes what we own now and then and after membership changes (self-check/).
  const selfCheck = new SelfChecker({
    logger,
    interfaces: interfacesFromLinks(links),
    answerFacts: (ip, mac) => hooks.answerFacts(ip, mac),
  });
  try {
    const vips = vipInterface ? await openVipBinding({ vipInterface, links, logger, stopping: () => hooks.stopping() }) : undefined;
    return { links, announcer, vips, selfCheck };
  } catch (error) {
    selfCheck.close();
    announcer.close();
    links.close();
    throw error;
  }
}
