/**
 * Loaded into a service instance of the past-capacity measurement with `--import` (see
 * service-process.ts): answers the parent's `overload-probe` messages on the IPC channel with
 * the instance's heap and event loop (servers/overload.ts). The channel is unref'd, so it keeps
 * nothing alive: the service exits on SIGTERM as it does anywhere.
 */
import { overloadProbe } from './overload.js';

process.on('message', (message: unknown) => {
  const value = overloadProbe(message);
  if (value !== undefined) process.send?.({ type: 'result', value });
});
process.channel?.unref();
