import { describe, expect, it } from 'vitest';
import { type ConfigResult, loadConfig } from '../src/config.js';

// The parsing itself is tested where it lives (the shared config, for now in
// the Express example); this pins the contract the Hapi app starts from.
const configOf = (result: ConfigResult) => {
  if (!result.ok) throw new Error(`unexpected config errors: ${result.errors.join('; ')}`);
  return result.config;
};

describe('the Hapi app configuration', () => {
  it('defaults to 127.0.0.1:3000, in memory, no seed, one generated key', () => {
    expect(configOf(loadConfig({}, () => 'made-up'))).toEqual({
      port: 3000,
      host: '127.0.0.1',
      apiKeys: ['made-up'],
      keyGenerated: true,
      databaseUrl: undefined,
      seedPets: 0,
      shutdownTimeoutMs: 10_000,
    });
  });

  it('reads PORT, HOST, API_KEYS, DATABASE_URL and SEED_PETS', () => {
    const config = configOf(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        API_KEYS: 'alpha,beta',
        DATABASE_URL: 'postgres://user:secret@127.0.0.1:5432/pets',
        SEED_PETS: '5',
      }),
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      apiKeys: ['alpha', 'beta'],
      keyGenerated: false,
      databaseUrl: 'postgres://user:secret@127.0.0.1:5432/pets',
      seedPets: 5,
    });
  });

  it('refuses bad values with messages that never echo a secret', () => {
    const result = loadConfig({
      PORT: 'abc',
      API_KEYS: 'good,bad key',
      DATABASE_URL: 'mysql://u:hunter2@h/db',
    });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toContain('PORT must be an integer from 0 to 65535, got "abc"');
    expect(errors.join('\n')).not.toMatch(/bad key|hunter2/);
    expect(errors).toHaveLength(3);
  });
});
