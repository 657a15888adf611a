/**
 * Whether an addon loaded, and where it was looked for when not. Its own module because both the loader and the
 * embedded-addon path (which the loader calls) report it.
 */
export type AddonStatus = { loaded: true; path: string } | { loaded: false; why: string; looked: string[] };
