import { fileURLToPath } from 'node:url';
import { describeMetrics } from '@petstore/service/testing';

// GET /metrics of this app as a real process, read with a Prometheus text-format parser.
describeMetrics({ name: 'Hapi', appDir: fileURLToPath(new URL('..', import.meta.url)) });
