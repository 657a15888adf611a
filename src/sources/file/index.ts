// src/sources/file: the YAML configuration file, read once or watched. Adapter (fs, timers).
export { loadConfigFile } from './load-config-file';
export {
  ConfigLoadError, FileSource, type FileSourceListener, type FileSourceOptions, type FileSourceState,
  RELOAD_DEBOUNCE_MS, STAT_POLL_INTERVAL_MS, type Scheduler, watchConfigFile,
} from './file-source';
