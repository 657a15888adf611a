/**
 * The release before this one, for tests that mix it with the current code (rolling upgrades): the last commit
 * landed before the records-version field was added to node meta. Tests that need it skip, naming it, when a
 * clone lacks it (a shallow clone).
 */
export const PREVIOUS_RELEASE_COMMIT = '3651dac';
