import { describe, expect, it } from 'vitest';
import { loggingHooks } from '../src/logging.js';
import { capturedLogger } from './captured-logger.js';

const response = {
  method: 'POST',
  route: '/pets',
  operationId: 'createPet',
  status: 201,
  durationMs: 1.2345,
  requestId: 'req-1',
};

describe('loggingHooks', () => {
  it('logs each answer as one info line with the route template, status, duration and request id', () => {
    const { logger, lines } = capturedLogger('info');
    loggingHooks(logger).onResponse(response);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request', ...response, durationMs: 1.2 });
    expect(Object.keys(lines[0] ?? {}).sort()).toEqual(
      [
        'durationMs',
        'hostname',
        'level',
        'method',
        'msg',
        'operationId',
        'pid',
        'requestId',
        'route',
        'status',
        'time',
      ].sort(),
    );
  });

  it('logs 5xx answers at warn, and leaves out a route that did not match', () => {
    const { logger, lines } = capturedLogger('info');
    const hooks = loggingHooks(logger);
    hooks.onResponse({ ...response, status: 503 });
    hooks.onResponse({ ...response, route: undefined, operationId: undefined, status: 404 });
    expect(lines.map((line) => line.level)).toEqual([40, 30]);
    expect(lines[1]).not.toHaveProperty('route');
  });

  it('logs deprecated calls at warn, with the sunset date', () => {
    const { logger, lines } = capturedLogger('info');
    loggingHooks(logger).onDeprecatedCall({
      operationId: 'getPet',
      method: 'GET',
      route: '/pets/{petId}',
      requestId: 'req-2',
      sunsetAt: new Date('2030-12-05T00:00:00Z'),
    });
    expect(lines).toMatchObject([
      {
        level: 40,
        msg: 'deprecated operation called',
        operationId: 'getPet',
        requestId: 'req-2',
        sunsetAt: '2030-12-05T00:00:00.000Z',
      },
    ]);
  });

  it('logs unexpected errors at error with message and stack', () => {
    const { logger, lines } = capturedLogger('info');
    loggingHooks(logger).onError({
      error: new RangeError('boom'),
      method: 'GET',
      route: '/pets',
      requestId: 'req-3',
    });
    expect(lines).toMatchObject([
      {
        level: 50,
        msg: 'unexpected error',
        requestId: 'req-3',
        err: { type: 'RangeError', message: 'boom', stack: expect.stringContaining('RangeError') },
      },
    ]);
  });

  it('redacts an authorization header or keys if someone ever logs them', () => {
    const { logger, lines } = capturedLogger('info');
    logger.info({ req: { headers: { authorization: 'Bearer s3cret' } }, apiKeys: ['s3cret'] });
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('writes nothing below LOG_LEVEL', () => {
    const { logger, lines } = capturedLogger('warn');
    loggingHooks(logger).onResponse(response);
    expect(lines).toEqual([]);
  });
});
