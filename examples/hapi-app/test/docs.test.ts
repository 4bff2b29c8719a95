import { fileURLToPath } from 'node:url';
import { describeDocsPage } from '@petstore/service/testing';

// GET /docs (the API reference) over HTTP and in headless Chromium, against this app.
describeDocsPage({ name: 'Hapi', appDir: fileURLToPath(new URL('..', import.meta.url)) });
