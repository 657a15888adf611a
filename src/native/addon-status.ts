/**
 * What loading a native module came to: the path it loaded from, or why not and where it looked. Its own file so
 * the loader (addon-loader.ts) and the one-file build's loader (embedded-addon.ts) share it without importing
 * each other.
 */
export type AddonStatus = { loaded: true; path: string } | { loaded: false; why: string; looked: string[] };
