/**
 * The parts of @kubernetes/client-node mlb uses, and all that dist/mlb-k8s.mjs bundles of it (the package's whole
 * index is three times the size). Imported only through client-node-module.ts.
 */
export { CoreV1Api, CustomObjectsApi, KubeConfig, ListWatch, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
