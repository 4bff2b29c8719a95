import { fileURLToPath } from 'node:url';
import { describeExampleApp } from '@petstore/service/testing';

// The shared behaviour (API, request log, health, shutdown, PostgreSQL), run against this app.
describeExampleApp({ name: 'Hapi', appDir: fileURLToPath(new URL('..', import.meta.url)) });
