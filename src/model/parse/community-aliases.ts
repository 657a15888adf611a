/**
 * Community aliases: every Community object's entries form one name space (config.go communitiesFromCrs), and a
 * BGPAdvertisement's communities are aliases first, values second (getCommunityValue).
 */
import type { BGPAdvertisement, CommunityValue } from '../types';
import { parseCommunity } from './community';
import { DiagnosticCode } from './diagnostic-codes';
import { didYouMean } from './did-you-mean';
import { type Parsed, type ParsedObjects, reportAt } from './parsed-objects';

export function collectAliases(parsed: ParsedObjects): Map<string, CommunityValue> {
  const aliases = new Map<string, CommunityValue>();
  for (const c of parsed.communities) {
    for (const entry of c.entries) {
      const name = entry.name.value;
      const result = parseCommunity(entry.value.value);
      if (!result.ok) {
        c.scope.error(DiagnosticCode.invalidCommunity, `parsing community "${name}": ${result.reason}`, entry.value.position);
        continue;
      }
      if (aliases.has(name)) {
        c.scope.error(DiagnosticCode.duplicateCommunity, `duplicate definition of community "${name}"`, entry.name.position);
        continue;
      }
      aliases.set(name, result.value);
    }
  }
  return aliases;
}

/** The advertisement with communityValues filled in; unresolvable entries are reported and left out. */
export function resolveCommunities(ad: Parsed<BGPAdvertisement>, aliases: ReadonlyMap<string, CommunityValue>): BGPAdvertisement {
  const values: CommunityValue[] = [];
  ad.object.communities.forEach((text, index) => {
    const alias = aliases.get(text);
    if (alias) {
      values.push(alias);
      return;
    }
    const result = parseCommunity(text);
    if (result.ok) {
      values.push(result.value);
      return;
    }
    const path = `spec.communities[${index}]`;
    if (result.problem === 'badValue') {
      reportAt(ad, 'error', DiagnosticCode.invalidCommunity, `invalid community "${text}" in BGP advertisement: ${result.reason}`, path);
    } else {
      reportAt(
        ad,
        'error',
        DiagnosticCode.unknownCommunity,
        `invalid community "${text}" in BGP advertisement: no Community defines the alias "${text}", and it is not a value like "65000:100" or "large:1:2:3"${didYouMean(text, aliases.keys())}`,
        path,
      );
    }
  });
  return { ...ad.object, communityValues: values };
}
