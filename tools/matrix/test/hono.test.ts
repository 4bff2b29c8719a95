import { runHost } from '../src/index.js';

runHost('hono');
