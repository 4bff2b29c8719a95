import { runHost } from '../src/index.js';

runHost('core');
