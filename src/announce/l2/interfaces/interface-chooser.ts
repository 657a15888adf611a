/**
 * Interface selection for many IPs over one reading of the links. selectInterfaces depends on an IP only through
 * its family and the link addresses whose subnet contains it, so the choice is made once per (list asked for,
 * family, subnets matched) and given to every IP alike: a failover of thousands of IPs from one pool chooses a
 * handful of times, not once per IP (each a walk of every link, its choices built and sorted). Pure apart from
 * its memo, which lives as long as the links it was made from.
 */
import { cidrContains, formatCIDR, makeCIDR, type CIDR, type IP } from '../../../ip';
import { mayAnswer, selectInterfaces, type InterfaceSelection, type LinkInfo } from './interface-selection';

export class InterfaceChooser {
  /** Every address of every link that may answer, as the subnet it makes (a /32 is its own). */
  private readonly subnets: readonly { readonly cidr: CIDR; readonly text: string }[];
  private readonly memo = new Map<string, InterfaceSelection>();

  constructor(private readonly links: readonly LinkInfo[]) {
    this.subnets = links.filter(mayAnswer).flatMap((link) =>
      link.addresses.map((a) => {
        const cidr = makeCIDR(a.ip, a.prefix);
        return { cidr, text: `${link.name}:${formatCIDR(cidr)}` };
      }),
    );
  }

  /** selectInterfaces(ip, links, { interfaces }), for this chooser's links. */
  select(ip: IP, interfaces: readonly string[]): InterfaceSelection {
    let matched = '';
    for (const s of this.subnets) if (cidrContains(s.cidr, ip)) matched += `${s.text} `;
    const key = `${ip.family}|${interfaces.join(',')}|${matched}`;
    const made = this.memo.get(key);
    if (made) return made.ip === ip ? made : { ...made, ip };
    const selection = selectInterfaces(ip, this.links, interfaces.length > 0 ? { interfaces } : {});
    this.memo.set(key, selection);
    return selection;
  }
}
