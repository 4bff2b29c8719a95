import { fileURLToPath } from 'node:url';
import { describeHostileTraffic } from '@petstore/service/testing';

// Crash requests, parser-refused requests, a seeded fuzz run, slow clients (issue 10).
describeHostileTraffic({ name: 'Hapi', appDir: fileURLToPath(new URL('..', import.meta.url)) });
