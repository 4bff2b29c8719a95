import { runHost } from '../src/index.js';

runHost('express-json');
