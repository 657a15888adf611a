/**
 * Go's fmt %q and %v of string slices, as MetalLB's controller messages print cluster IPs (controller/service.go,
 * internal/ipfamily). The element quoting is the allocator's (strconv.Quote).
 */
import { goQuoteList } from '../allocator/go-format';

/** %q of a []string: ["10.0.0.1" "fd00::1"]. */
export function goQuoteText(items: readonly string[]): string {
  return goQuoteList(items);
}

/** %v of a []string: [10.0.0.1 fd00::1]. */
export function goPlainList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}
