// src/daemon/allocation: allocation without an API server (file mode). A table of allocations, a CRDT merged
// through gossip and kept under --state-dir; the allocator node chosen by hash order; the view every node uses.
// Everything here is pure except allocation-store.ts.
export * from './allocation-table';
export * from './allocation-table-codec';
export * from './allocator-node';
export * from './claim-addresses';
export * from './allocate-with-table';
export * from './effective-allocation';
export * from './allocation-store';
export * from './restore-allocations';
