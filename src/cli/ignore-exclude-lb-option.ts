/**
 * `--ignore-exclude-lb`, MetalLB's speaker flag (speaker/main.go, v0.13 and later): nodes labelled
 * node.kubernetes.io/exclude-from-external-load-balancers stay candidates. Users who set it on MetalLB's DaemonSet
 * set it on mlb's, and every speaker of a cluster must agree on it, or two of them elect different owners.
 */
export interface IgnoreExcludeLbArgs {
  'ignore-exclude-lb'?: boolean;
}

export const ignoreExcludeLbOption = {
  type: 'boolean',
  describe:
    "As MetalLB's speaker flag: nodes labelled node.kubernetes.io/exclude-from-external-load-balancers may announce (give it to every speaker, or none)",
} as const;

/** The speaker setting for the flag: present only when given, so the election's default stays MetalLB's. */
export function ignoreExcludeLbSetting(args: IgnoreExcludeLbArgs): { ignoreExcludeLB?: true } {
  return args['ignore-exclude-lb'] ? { ignoreExcludeLB: true } : {};
}
