/**
 * What netlink's `require('node-gyp-build')(dir)` returns in the one-file build (scripts/build-sea.mjs puts this
 * in node-gyp-build's place): its native binding, loaded from the executable's embedded copy through the same
 * private loading as mlb's own addons. MLB_NETLINK_ADDON names a file to load instead.
 */
import { loadAddon } from './addon-loader';
import { EMBEDDED } from '../packaging/single-executable';

export function netlinkBinding(): unknown {
  const { status, addon } = loadAddon<unknown>({ fileName: EMBEDDED.netlinkBinding, overrideEnv: 'MLB_NETLINK_ADDON' });
  if (!status.loaded) throw new Error(`netlink's native binding did not load: ${status.why}`);
  return addon;
}
