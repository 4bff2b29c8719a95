#!/usr/bin/env node
// Committed launcher so installs can link the bin before `dist/` exists; the CLI is built to dist.
import '../dist/cli.js';
