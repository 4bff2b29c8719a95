export { type BannerFacts, bannerLines, urlHost } from './banner.js';
export {
  type AppConfig,
  type ConfigResult,
  type Env,
  LOG_LEVELS,
  type LogLevel,
  loadConfig,
  MAX_SEED_PETS,
  SERVING_DEFAULTS,
} from './config.js';
export { type ConnectionLimits, createLimitedServer } from './connection-limits.js';
export { type Connections, trackConnections } from './connections.js';
export { type FrontDoorOptions, frontDoor } from './front-door.js';
export {
  createHostRoutes,
  DEFAULT_READY_TIMEOUT_MS,
  type HostAnswer,
  type HostRequest,
  type HostRoute,
  type HostRouteAnswer,
  type HostRoutes,
  type HostRoutesOptions,
  hostRouteTable,
} from './host-routes.js';
export { createHttpService, drainHttpServer, type HttpService } from './http-service.js';
export {
  createLogger,
  type Logger,
  type LoggingHooks,
  loggingHooks,
  logRequest,
  type RequestLine,
} from './logging.js';
export { MOUNT_PATH, runService, type ServiceParts, type Serving } from './service.js';
export {
  CLOSE_GRACE_MS,
  type Drain,
  handleShutdownSignals,
  RELAYED_SIGNAL_WINDOW_MS,
  type ShutdownOptions,
} from './shutdown.js';
export { type OpenedStorage, openStorage, seedPets } from './storage.js';
