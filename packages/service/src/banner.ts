import type { AddressInfo } from 'node:net';
import type { AppConfig } from './config.js';

/** An address a browser or curl on this machine can use, even when bound to every interface. */
export function urlHost({ address, family }: AddressInfo): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return family === 'IPv6' ? `[${address}]` : address;
}

/** Where the key comes from: API_KEYS, a kept file (printed at each start), or this start alone. */
function keyLine(config: BannerFacts['config'], key: unknown): string {
  if (!config.keyGenerated) return `API keys: ${config.apiKeys.length} from API_KEYS`;
  return config.keyFile === undefined
    ? `API key (generated, shown once; set API_KEYS to choose your own): ${String(key)}`
    : `API key (generated, kept in ${config.keyFile}; set API_KEYS to choose your own): ${String(key)}`;
}

export interface BannerFacts {
  readonly address: AddressInfo;
  readonly publicPath: string;
  readonly storage: string;
  readonly seeded: number;
  readonly config: Pick<AppConfig, 'apiKeys' | 'keyGenerated' | 'keyFile' | 'seedPets'>;
  /** The management listener's address, when there is one. */
  readonly management?: AddressInfo | undefined;
}

/**
 * The start-up lines, plain text for a human (and for the tests, which read the URL and the
 * key from them). A generated key is shown here, once; keys from API_KEYS never are.
 */
export function bannerLines({
  address,
  publicPath,
  storage,
  seeded,
  config,
  management,
}: BannerFacts): string[] {
  const url = `http://${urlHost(address)}:${address.port}${publicPath}`;
  // Keys from API_KEYS are never printed: the hint names where to find one instead.
  const key = config.keyGenerated ? config.apiKeys[0] : '<a key from API_KEYS>';
  const seeding =
    seeded > 0
      ? `, ${seeded} demo pets created`
      : config.seedPets > 0
        ? `, SEED_PETS=${config.seedPets} skipped: the storage already holds pets`
        : '';
  return [
    `pet store listening on ${url}`,
    `storage: ${storage}${seeding}`,
    keyLine(config, key),
    `try: curl -H "Authorization: Bearer ${key}" ${url}/pets`,
    management === undefined
      ? 'management: off (MANAGEMENT_PORT=off); /healthz and /readyz on the API port'
      : `management: http://${urlHost(management)}:${management.port} (/healthz, /readyz, /metrics)`,
  ];
}
