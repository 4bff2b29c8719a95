export { type BannerFacts, bannerLines, urlHost } from './banner.js';
export {
  type AppConfig,
  type ConfigResult,
  type Env,
  LOG_LEVELS,
  type LogLevel,
  loadConfig,
  MAX_SEED_PETS,
} from './config.js';
export {
  createDocsRoutes,
  DOCS_PATH,
  type DocsRoutes,
  type DocsRoutesOptions,
} from './docs-route.js';
export {
  createHostRoutes,
  DEFAULT_READY_TIMEOUT_MS,
  type HostAnswer,
  type HostRoutes,
  type HostRoutesOptions,
} from './host-routes.js';
export {
  createLogger,
  type Logger,
  type LoggingHooks,
  loggingHooks,
  logRequest,
  type RequestLine,
} from './logging.js';
export { BASE_PATH, runService, type ServiceParts, type Serving } from './service.js';
export {
  CLOSE_GRACE_MS,
  type Drain,
  drainHttpServer,
  handleShutdownSignals,
  type ShutdownOptions,
} from './shutdown.js';
export { type OpenedStorage, openStorage, seedPets } from './storage.js';
