import type { PetStore } from '@petstore/core';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { AUTH, listen, memoryStore, type Running } from './helpers.js';

/** The real store, with its answers bent the way a write can fail. */
const bent = (handle: PetStore['handle']): PetStore => ({ ...memoryStore(), handle });

describe('when the response cannot be written', () => {
  let api: Running | undefined;
  afterEach(async () => {
    await api?.close();
  });

  it('answers a JSON 500, never the HTML error page, and reports the error', async () => {
    const errors: unknown[] = [];
    const store = bent(async () => ({
      status: 200,
      headers: { 'x-broken': 'line\nbreak' },
      body: '{}',
    }));
    api = await listen(
      express().use('/v1', petStoreRouter(store, { onWriteError: (error) => errors.push(error) })),
    );
    const response = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({
      code: 'internal_error',
      message: 'The response could not be written.',
      status: 500,
    });
    expect(errors).toHaveLength(1);
    expect((errors[0] as { code?: string }).code).toBe('ERR_INVALID_CHAR');
  });

  it('answers a JSON 500 even if the store broke its promise never to reject', async () => {
    const store = bent(() => Promise.reject(new Error('bug')));
    api = await listen(express().use('/v1', petStoreRouter(store)));
    const response = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([response.status, JSON.parse(response.body).code]).toEqual([500, 'internal_error']);
  });
});
