// src/sources/file: the YAML configuration file, read once or watched. Adapter (fs, timers, worker threads).
export { loadConfigFile, type LoadConfigOptions, type ParseOutcome, parseConfigFileBytes } from './load-config-file';
export { type ParsedConfigFile, parseConfigBytes } from './parse-config-bytes';
export {
  CONFIG_SETTLE_MS, ConfigLoadError, FileSource, type FileSourceListener, type FileSourceOptions, type FileSourceState,
  MAX_SETTLE_WAIT_MS, RELOAD_DEBOUNCE_MS, STAT_POLL_INTERVAL_MS,
} from './file-source';
export { DEFAULT_MAX_CONFIG_BYTES, decodeConfigBytes, emptyConfigProblem, fileKindProblem, fileSizeProblem } from './config-file-checks';
export { type ConfigParser, ConfigParseError, type ConfigParseErrorCode, type ParseRequest, parseInProcess } from './config-parser';
export { type ConfigFileRead, type FileIdentity, readConfigFile } from './read-config-file';
export { PARSE_HEAP_LIMIT_MB, PARSE_TIMEOUT_MS, type WorkerParserOptions, workerParser } from './worker-parser';
