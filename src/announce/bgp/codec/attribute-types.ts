/**
 * Path attribute type codes (IANA "BGP Path Attributes"), their categories and the Attribute Flags octet
 * (RFC 4271 4.3). Append-only tables. The category decides which Optional/Transitive bits a received attribute
 * must carry (RFC 4271 5 and 6.3; a conflict is treat-as-withdraw under RFC 7606 section 3 item c).
 *
 *    0   1   2   3   4   5   6   7
 *  +---+---+---+---+---+---+---+---+
 *  | O | T | P | E |    unused     |   O optional, T transitive, P partial, E extended length (2-octet length)
 *  +---+---+---+---+---+---+---+---+
 */
export const AttributeFlag = { optional: 0x80, transitive: 0x40, partial: 0x20, extendedLength: 0x10 } as const;
/** The low four bits "MUST be zero when sent and MUST be ignored when received" (RFC 4271 4.3). */
export const ATTRIBUTE_FLAG_BITS = 0xf0;

export const AttributeType = {
  origin: 1,
  asPath: 2,
  nextHop: 3,
  multiExitDisc: 4,
  localPref: 5,
  atomicAggregate: 6,
  aggregator: 7,
  communities: 8,
  originatorId: 9,
  clusterList: 10,
  mpReachNlri: 14,
  mpUnreachNlri: 15,
  extendedCommunities: 16,
  as4Path: 17,
  as4Aggregator: 18,
  largeCommunity: 32,
} as const;

export type AttributeCategory = 'wellKnown' | 'optionalTransitive' | 'optionalNonTransitive';

/** Categories from each attribute's defining RFC (4271 5, 1997, 4456, 4760, 4360, 6793, 8092). */
export const ATTRIBUTE_CATEGORY: Readonly<Record<number, AttributeCategory>> = {
  [AttributeType.origin]: 'wellKnown',
  [AttributeType.asPath]: 'wellKnown',
  [AttributeType.nextHop]: 'wellKnown',
  [AttributeType.multiExitDisc]: 'optionalNonTransitive',
  [AttributeType.localPref]: 'wellKnown',
  [AttributeType.atomicAggregate]: 'wellKnown',
  [AttributeType.aggregator]: 'optionalTransitive',
  [AttributeType.communities]: 'optionalTransitive',
  [AttributeType.originatorId]: 'optionalNonTransitive',
  [AttributeType.clusterList]: 'optionalNonTransitive',
  [AttributeType.mpReachNlri]: 'optionalNonTransitive',
  [AttributeType.mpUnreachNlri]: 'optionalNonTransitive',
  [AttributeType.extendedCommunities]: 'optionalTransitive',
  [AttributeType.as4Path]: 'optionalTransitive',
  [AttributeType.as4Aggregator]: 'optionalTransitive',
  [AttributeType.largeCommunity]: 'optionalTransitive',
};

/** The Optional and Transitive bits an attribute of this category is sent with. */
export function flagsFor(category: AttributeCategory): number {
  switch (category) {
    case 'wellKnown':
      return AttributeFlag.transitive;
    case 'optionalTransitive':
      return AttributeFlag.optional | AttributeFlag.transitive;
    case 'optionalNonTransitive':
      return AttributeFlag.optional;
  }
}

/** True when the received Optional/Transitive bits differ from the category's (Partial and Extended are free). */
export function flagsConflict(flags: number, category: AttributeCategory): boolean {
  const significant = AttributeFlag.optional | AttributeFlag.transitive;
  return (flags & significant) !== flagsFor(category);
}

/** The attribute must be a well-known one (Optional bit clear) that this table lists. */
export function isUnrecognizedWellKnown(flags: number, type: number): boolean {
  return (flags & AttributeFlag.optional) === 0 && ATTRIBUTE_CATEGORY[type] === undefined;
}
