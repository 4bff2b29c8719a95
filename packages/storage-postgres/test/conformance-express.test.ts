import { createServer } from 'node:http';
import { serveNodeServer } from '@petstore/core/testing';
import { petStoreRouter } from '@petstore/express';
import express from 'express';
import { runConformanceOverPostgres } from './support/conformance.js';

runConformanceOverPostgres('express', (store) =>
  serveNodeServer(createServer(express().use('/v1', petStoreRouter(store)))),
);
