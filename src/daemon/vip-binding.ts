/**
 * VIP binding on a plain host: the binder on mlb0, and the ARP sysctls of every other interface kept so that the
 * kernel never answers for a VIP on mlb0, not even after mlb crashed (arp-sysctl-plan.ts). Interfaces come and
 * go, and a new one starts from conf/default, so the sysctls are prepared again on every link change.
 */
import type { Logger } from 'pino';
import { VipBinder } from '../announce/addr';
import type { NetlinkLinks } from '../announce/l2/interfaces';

export interface VipBindingOptions {
  readonly vipInterface: string;
  readonly links: NetlinkLinks;
  readonly logger: Logger;
  /**
   * True once the daemon is stopping: then link changes prepare nothing. Removing the VIPs on stop changes mlb0's
   * addresses, and a link dump finishing after the binder closed rejected into nothing and ended the process
   * mid-shutdown (seen: exit 1 after SIGTERM).
   */
  readonly stopping: () => boolean;
}

export async function openVipBinding(options: VipBindingOptions): Promise<VipBinder> {
  const { vipInterface, links, logger } = options;
  // The link table's notifications keep the binder's view of mlb0 (no dump per reconcile) and tell it of changes
  // made behind its back, which it repairs.
  const vips = await VipBinder.open({ interfaceName: vipInterface, logger, addresses: links });
  const prepare = () => {
    if (options.stopping()) return;
    const names = links
      .links()
      .map((l) => l.name)
      .filter((n) => n !== vipInterface && n !== 'lo');
    vips
      .prepareInterfaces(names)
      .catch((error: Error) =>
        logger.error({ event: 'arpSysctlFailed', error: error.message }, `cannot prepare the ARP sysctls: ${error.message}`),
      );
  };
  prepare();
  links.onChange(prepare);
  return vips;
}
