/** The codec surface the fuzzer drives, in one import. */
export * from '../../../src/gossip/codec';
export { VSN_LENGTH as VSN_LENGTH_CHECK } from '../../../src/gossip/messages';
