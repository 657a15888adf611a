// src/election: MetalLB's L2 and BGP ShouldAnnounce with reasons, explanations, and an incremental index. Pure.
export * from './reasons';
export * from './election-input';
export * from './hash-order';
export * from './advertisement-match';
export * from './node-eligibility';
export * from './bgp-announcement';
export * from './election-context';
export * from './verdict';
export * from './deferral';
export * from './explain';
export * from './l2-should-announce';
export * from './bgp-should-announce';
export * from './elect';
export * from './election-index';
export * from './candidate-text';
export * from './explain-each';
export * from './incremental-election';
