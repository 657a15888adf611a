/**
 * A native module carried inside the one-file build (dist/mlb) as an asset of the same name: loaded through a
 * private copy (private-addon-copy.ts), never from a file beside the executable. Never throws, like addon-loader.
 */
import { embeddedBytes } from '../packaging/single-executable';
import type { AddonStatus } from './addon-status';
import { dlopenPrivateCopy } from './private-addon-copy';

/** How an embedded module is named where a path would be (status, errors): it has no path. */
function embeddedAddonLocation(fileName: string): string {
  return `embedded:${fileName}`;
}

export function loadEmbeddedAddon<T>(fileName: string): { status: AddonStatus; addon: T | undefined } {
  const location = embeddedAddonLocation(fileName);
  const bytes = embeddedBytes(fileName);
  if (bytes === undefined) {
    return {
      status: { loaded: false, why: `${fileName} is not embedded in this executable (it was built without it)`, looked: [location] },
      addon: undefined,
    };
  }
  try {
    return { status: { loaded: true, path: location }, addon: dlopenPrivateCopy<T>(fileName, bytes) };
  } catch (error) {
    return {
      status: { loaded: false, why: `${location} did not load: ${(error as Error).message}`, looked: [location] },
      addon: undefined,
    };
  }
}
