import { fileURLToPath } from 'node:url';
import { describeOperations } from '@petstore/service/testing';

// Connection fairness, the management port, the pre-stop delay and the pool size, as a real process.
describeOperations({ name: 'Hapi', appDir: fileURLToPath(new URL('..', import.meta.url)) });
