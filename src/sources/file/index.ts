// src/sources/file: the YAML configuration file, read once or watched. Adapter (fs, timers, worker threads).
export { loadConfigFile, type LoadConfigOptions, type ParseOutcome, parseConfigFileBytes } from './load-config-file';
export { type ParsedConfigFile, parseConfigBytes } from './parse-config-bytes';
export { ConfigLoadError, FileSource, type FileSourceListener, type FileSourceOptions, type FileSourceState } from './file-source';
export { DEFAULT_MAX_CONFIG_BYTES, decodeConfigBytes, emptyConfigProblem, fileKindProblem, fileSizeProblem } from './config-file-checks';
export { type ConfigParser, ConfigParseError, type ConfigParseErrorCode, type ParseRequest, parseInProcess } from './config-parser';
export { type ConfigFileRead, type FileIdentity, readConfigFile } from './read-config-file';
export { type WorkerParserOptions, workerParser } from './worker-parser';
export { IN_PROCESS_PARSE_MAX_BYTES, sizeChosenParser } from './size-chosen-parser';
