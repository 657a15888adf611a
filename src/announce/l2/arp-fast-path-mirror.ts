/**
 * What one ARP socket's fast path holds (the addon's table: a MAC and the IPv4 addresses it answers for), mirrored
 * here so that each change sends the addon only the addresses gained and lost. Not pure: it calls the socket.
 *
 * The mirror's address set is edited in place, as the addon's table is: a batch answered ahead of its reconcile
 * (L2Announcer.answerAhead) costs O(batch), not a copy of everything owned. The addon copies the arrays it is
 * given, so nothing here is shared with it.
 *
 * Two ways in: sync() brings the table to the addresses owned on the interface (a reconcile, a link change), and
 * addAhead() adds addresses not announced yet. An address added ahead stays until the next sync with a new owned
 * set, which removes it unless the reconcile behind that set owns it: a link change that brings no new owned set
 * leaves it, since the reconcile that announces it is still to come.
 */
import type { ArpAnswerTimes, PacketSocket } from '../../native';
import { foldAnswerTimes } from './arp-answer-times';
import type { FastPathCount, L2Counters } from './l2-counters';
import { ipKey } from './l2-interface';
import { formatMAC } from './mac-address';

/** The addon's table is not known (a call to it failed): the next sync sets it whole. */
const UNKNOWN = undefined;

export class ArpFastPathMirror {
  /** The MAC the fast path answers with: "" when off, UNKNOWN after a failed call. */
  private mac: string | undefined = '';
  /** The addresses the addon's table holds, as host-order numbers. */
  private readonly ips = new Set<number>();
  /** The owned set the table was last brought to by sync(): the same set again means nothing owned changed. */
  private syncedTo: ReadonlySet<number> | undefined;
  /** The addon's counters already folded into the announcer's: ip -> counts. */
  private readonly seen = new Map<number, FastPathCount>();
  /** The addon's answer times already folded into the announcer's. */
  private seenTimes: ArpAnswerTimes | undefined;

  /** Whether the fast path answers for something already (addAhead adds only to a table that is on). */
  get answering(): boolean {
    return this.mac !== '' && this.mac !== UNKNOWN;
  }

  /**
   * Brings the table to `wanted` answered with `mac` (off when there is no MAC or nothing wanted): the whole table
   * when the fast path starts or the MAC changes, otherwise only the addresses gained and lost. A throw leaves the
   * table UNKNOWN, to be set whole next time, and is passed on.
   */
  sync(socket: PacketSocket, mac: Uint8Array | undefined, wanted: ReadonlySet<number>): void {
    if (!socket.setArpFastPath) return;
    const text = mac !== undefined && wanted.size > 0 ? formatMAC(mac) : '';
    if (text === this.mac && (text === '' || wanted === this.syncedTo)) return;
    try {
      if (text === '') {
        socket.setArpFastPath(null);
        this.ips.clear();
      } else if (text !== this.mac) {
        this.setWhole(socket, mac!, wanted);
      } else {
        const add: number[] = [];
        const remove: number[] = [];
        for (const ip of wanted) if (!this.ips.has(ip)) add.push(ip);
        for (const ip of this.ips) if (!wanted.has(ip)) remove.push(ip);
        if (add.length === 0 && remove.length === 0) {
          // the same addresses: nothing to tell the addon
        } else if (!socket.changeArpFastPath) {
          this.setWhole(socket, mac!, wanted);
        } else {
          socket.changeArpFastPath(add, remove);
          for (const ip of remove) this.ips.delete(ip);
          for (const ip of add) this.ips.add(ip);
        }
      }
      this.mac = text;
      this.syncedTo = wanted;
    } catch (error) {
      this.mac = UNKNOWN;
      this.syncedTo = undefined;
      this.ips.clear();
      throw error;
    }
  }

  private setWhole(socket: PacketSocket, mac: Uint8Array, wanted: ReadonlySet<number>): void {
    socket.setArpFastPath!({ mac, ips: [...wanted] });
    this.ips.clear();
    for (const ip of wanted) this.ips.add(ip);
  }

  /**
   * Adds `ips` to a table that is on, ahead of the sync that will own them; those it holds already are skipped.
   * A failed call changes nothing (the addon checks its arguments before editing): the reconcile adds them later.
   */
  addAhead(socket: PacketSocket, ips: readonly number[]): void {
    if (!this.answering || !socket.changeArpFastPath) return;
    const gained = ips.filter((ip) => !this.ips.has(ip));
    if (gained.length === 0) return;
    try {
      socket.changeArpFastPath(gained, []);
    } catch {
      return;
    }
    for (const ip of gained) this.ips.add(ip);
  }

  /** Adds what the addon counted since the last look to requests_received / responses_sent / sendFailures and the answer times. */
  collect(socket: PacketSocket, counters: L2Counters): void {
    const stats = readOrSkip(() => socket.fastPathStats?.());
    if (!stats) return;
    counters.foldFastPath(stats, this.seen, (ip) => ipKey({ family: 4, value: BigInt(ip) }));
    const times = readOrSkip(() => socket.fastPathTimes?.());
    if (!times) return;
    counters.answerTimes = foldAnswerTimes(counters.answerTimes, times, this.seenTimes);
    this.seenTimes = times;
  }

  /** Forgets everything: the socket is closing (its counters collected first), and a new one starts off. */
  reset(): void {
    this.mac = '';
    this.ips.clear();
    this.syncedTo = undefined;
    this.seen.clear();
    this.seenTimes = undefined;
  }
}

/** A reading of the addon's counters, or undefined when the socket lacks it or the call fails (closed under us). */
function readOrSkip<T>(read: () => T | undefined): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
