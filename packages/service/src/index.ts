// What a host of the service needs: `runService` and the HTTP side it serves from. The bin
// (`petstore-service`, main.ts) is one call to these; each module's own API is for its tests.
export type { AppConfig, Env, LogLevel, StorageChoice } from './config.js';
export type { HostRoutes } from './host-routes.js';
export { createHttpService, type HttpService, serveListener } from './http-service.js';
export type { Logger } from './logging.js';
export type { Metrics } from './metrics.js';
export type { PreemptedRequests } from './preempted.js';
export { runService, type ServiceParts, type Serving } from './service.js';
export type { Drain } from './shutdown.js';
export type { Tracing } from './tracing.js';
