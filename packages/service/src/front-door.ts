import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createMount, readTarget, requestIdOf, targetPath } from '@petstore/core';
import type { Connections } from './connections.js';
import { errorAnswer } from './error-answers.js';
import { type HostRoute, type HostRoutes, writeHostAnswer } from './host-routes.js';
import { type Logger, logRequest } from './logging.js';
import type { PreemptedRequests } from './preempted.js';
import type { Tracing } from './tracing.js';

export interface FrontDoorOptions {
  /** Requests at this path and below go to the framework (the API); the rest are ours. */
  readonly mountPath: string;
  readonly routes: readonly HostRoute[];
  /** For the JSON 404 of every other path. */
  readonly host: HostRoutes;
  readonly logger: Logger;
  readonly connections: Connections;
  /** True once shutdown began: every answer then closes its connection. */
  readonly stopping: () => boolean;
  readonly preempted: PreemptedRequests;
  /** With tracing on, each API request runs in a server span of its own. */
  readonly tracing?: Tracing | undefined;
}

/**
 * The path of the request target as every host reads it (core's `readTarget`: dot segments
 * resolved, so `/v1/pets/../../healthz` is `/healthz`; an absolute-form target in origin form).
 * The target is rewritten when that changes it, so the front door and the framework agree on
 * what was asked for. Anything that is no path (`*`, `http://[bad/v1`) is undefined.
 */
function pathOf(req: IncomingMessage): string | undefined {
  const read = readTarget(req.url ?? '');
  const path = targetPath(read);
  if (path !== undefined && read !== req.url) req.url = read;
  return path;
}

const hasBody = ({ headers }: IncomingMessage): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * Every request to every app comes through here first, as a Node request listener: an
 * unparseable target gets a 400 Error body, the host routes and the JSON 404 are answered here
 * without reading a body, and only the API's own paths reach the framework. So no framework's
 * payload parsing, router or error page ever sees a request outside the API.
 */
export function frontDoor(options: FrontDoorOptions, api: RequestListener): RequestListener {
  const { mountPath, routes, host, logger, connections, stopping, preempted, tracing } = options;
  const mount = createMount({ mountPath });

  /**
   * Hands an API request to the framework with its request id settled here, so the core and
   * the HTTP layer (a 408 while the body is still coming) name it alike; a request cut before
   * its body is complete gets no report from the core, only a debug line here.
   */
  const toApi = (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = requestIdOf(req.headers);
    req.headers['x-request-id'] = requestId;
    let cut = false;
    const onCut = (): void => {
      if (cut || res.writableFinished) return;
      cut = true;
      preempted.mark(requestId);
      logger.debug({ method: req.method, requestId }, 'request aborted');
    };
    req.once('error', onCut);
    req.once('close', () => {
      if (!req.complete) onCut();
    });
    if (tracing === undefined) api(req, res);
    else tracing.serverSpan(req, res, () => api(req, res));
  };
  const byPath = new Map(routes.map((route) => [route.path, route]));

  const answerHere = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const method = req.method ?? '-';
    const route = method === 'GET' || method === 'HEAD' ? byPath.get(path) : undefined;
    const answer =
      route === undefined
        ? host.notFound(method, path, req.headers['x-request-id'])
        : await route.answer({ method, path, headers: req.headers });
    writeHostAnswer(res, answer);
  };

  /** A 400 for a request no route should see. */
  const refuse = (req: IncomingMessage, res: ServerResponse, message: string): void => {
    const started = performance.now();
    const requestId = requestIdOf(req.headers);
    if (hasBody(req)) res.setHeader('connection', 'close');
    writeHostAnswer(res, errorAnswer('invalid_request', message, requestId));
    logRequest(logger, {
      method: req.method ?? '-',
      route: undefined,
      status: 400,
      durationMs: performance.now() - started,
      requestId,
    });
  };

  return (req, res) => {
    connections.busy(req, res);
    if (stopping()) res.setHeader('connection', 'close');
    const path = pathOf(req);
    if (path === undefined) {
      refuse(req, res, 'The request target must be a path such as /v1/pets.');
      return;
    }
    if (mount.below(path) !== undefined) {
      toApi(req, res);
      return;
    }
    // A body we will not read is left unread: the connection closes after the answer instead.
    if (hasBody(req)) res.setHeader('connection', 'close');
    answerHere(req, res, path).catch((error: unknown) => {
      // Host routes turn their failures into answers; reaching this is a bug in one.
      logger.error({ err: error }, 'unexpected error');
      res.destroy();
    });
  };
}
