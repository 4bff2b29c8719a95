import { fileURLToPath } from 'node:url';
import { describeTracing } from '@petstore/service/testing';

// OTLP traces to a real receiver: HTTP span, operation span, pg spans, log correlation.
describeTracing({ name: 'Express', appDir: fileURLToPath(new URL('..', import.meta.url)) });
