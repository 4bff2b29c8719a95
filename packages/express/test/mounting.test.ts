import express, { type ErrorRequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { AUTH, JSON_AUTH, memoryStore, serveApp } from './helpers.js';

const newPet = (name: string) => JSON.stringify({ name, categoryId: 1 });

/** The host's own error handler: plain JSON that says it was the host. */
const hostErrors: ErrorRequestHandler = (
  error: { type?: string; message: string },
  _req,
  res,
  _next,
) => {
  res.status(599).json({ host: error.type ?? error.message });
};

describe('mount point', () => {
  it('never lets a publicPath taken from a header into Location or Link (500, onError)', async () => {
    const errors: unknown[] = [];
    const store = memoryStore({ hooks: { onError: (event) => errors.push(event.error) } });
    const api = await serveApp((app) =>
      app.use(
        '/v1',
        petStoreRouter(store, {
          publicPath: (req) => String(req.headers['x-forwarded-prefix'] ?? '') + req.baseUrl,
        }),
      ),
    );
    const forged = '/x>; rel="next", <https://evil.example';
    const created = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...JSON_AUTH, 'x-forwarded-prefix': forged },
      body: newPet('Rex'),
    });
    expect(created.status).toBe(500);
    expect(created.headers.location).toBeUndefined();
    expect(JSON.stringify(created)).not.toContain('evil');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/publicPath must be a URL path/);
    // Without a key, the forged prefix is not even looked at.
    const anonymous = await api.send({
      method: 'GET',
      path: '/v1/pets/1',
      headers: { 'x-forwarded-prefix': forged },
    });
    expect(anonymous.status).toBe(401);
    expect(errors).toHaveLength(1);
    const fine = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...JSON_AUTH, 'x-forwarded-prefix': '/public' },
      body: newPet('Rex'),
    });
    expect(fine.headers.location).toBe('/public/v1/pets/1');
  });
});

describe('next to host routes', () => {
  it('leaves host routes before and after the mount alone', async () => {
    const api = await serveApp((app) => {
      app.get('/healthz', (_req, res) => {
        res.json({ ok: true });
      });
      app.use('/v1', petStoreRouter(memoryStore()));
      app.get('/after', (_req, res) => {
        res.type('text').send('host');
      });
    });
    const health = await api.send({ method: 'GET', path: '/healthz' });
    expect([health.status, health.body]).toEqual([200, '{"ok":true}']);
    const after = await api.send({ method: 'GET', path: '/after' });
    expect([after.status, after.body]).toEqual([200, 'host']);
    const ours = await api.send({ method: 'GET', path: '/v1/pets' });
    expect(ours.status).toBe(401);
    // A sibling path that only shares the prefix's letters is not ours.
    const sibling = await api.send({ method: 'GET', path: '/v1x/pets' });
    expect(sibling.status).toBe(404);
    expect(sibling.headers['content-type']).toMatch(/^text\/html/);
  });

  it("leaves the host's error handler in charge outside the mount and for errors that are not about the body", async () => {
    const api = await serveApp((app) => {
      app.use(
        express.json({
          verify: (_req, _res, buf) => {
            if (buf.includes('forbidden')) throw new Error('host refuses this body');
          },
        }),
      );
      app.use('/v1', (req, _res, next) => {
        next(req.headers['x-deny'] === undefined ? undefined : new Error('host denies'));
      });
      app.use('/v1', petStoreRouter(memoryStore()));
      app.post('/host', (req, res) => {
        res.json(req.body);
      });
      app.get('/boom', () => {
        throw new Error('host bug');
      });
      app.use(hostErrors);
    });
    const malformedOutside = await api.send({
      method: 'POST',
      path: '/host',
      headers: JSON_AUTH,
      body: '{"a":',
    });
    expect([malformedOutside.status, JSON.parse(malformedOutside.body)]).toEqual([
      599,
      { host: 'entity.parse.failed' },
    ]);
    const boom = await api.send({ method: 'GET', path: '/boom' });
    expect([boom.status, JSON.parse(boom.body)]).toEqual([599, { host: 'host bug' }]);
    const denied = await api.send({
      method: 'GET',
      path: '/v1/pets',
      headers: { ...AUTH, 'x-deny': '1' },
    });
    expect([denied.status, JSON.parse(denied.body)]).toEqual([599, { host: 'host denies' }]);
    const verify = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: newPet('forbidden'),
    });
    expect([verify.status, JSON.parse(verify.body)]).toEqual([
      599,
      { host: 'entity.verify.failed' },
    ]);
    // ...while a body error under the mount is answered by the core.
    const malformedInside = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: '{"a":',
    });
    expect([malformedInside.status, JSON.parse(malformedInside.body).code]).toEqual([
      400,
      'malformed_json',
    ]);
  });
});
