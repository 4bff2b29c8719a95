import { describe, expect, it } from 'vitest';
import { type ConfigResult, loadConfig, MAX_SEED_PETS } from '../src/config.js';

const errorsOf = (result: ConfigResult): readonly string[] => (result.ok ? [] : result.errors);
const configOf = (result: ConfigResult) => {
  if (!result.ok) throw new Error(`unexpected config errors: ${result.errors.join('; ')}`);
  return result.config;
};

describe('loadConfig', () => {
  it('has defaults for everything, and makes up a key when none is given', () => {
    expect(configOf(loadConfig({}, () => 'made-up'))).toEqual({
      port: 3000,
      host: '127.0.0.1',
      apiKeys: ['made-up'],
      keyGenerated: true,
      databaseUrl: undefined,
      seedPets: 0,
      shutdownTimeoutMs: 10_000,
      logLevel: 'info',
      docs: true,
    });
  });

  it('generates a fresh random key each start', () => {
    const [first, second] = [loadConfig({}), loadConfig({})].map(
      (result) => configOf(result).apiKeys[0],
    );
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(second).not.toBe(first);
  });

  it('reads every variable, trimming blanks, and treats empty as unset', () => {
    const config = configOf(
      loadConfig({
        PORT: ' 8080 ',
        HOST: '0.0.0.0',
        API_KEYS: 'alpha, beta=',
        DATABASE_URL: 'postgres://user:secret@127.0.0.1:5432/pets',
        SEED_PETS: '5',
        SHUTDOWN_TIMEOUT_MS: '2500',
        LOG_LEVEL: 'DEBUG',
        DOCS: 'OFF',
      }),
    );
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      apiKeys: ['alpha', 'beta='],
      keyGenerated: false,
      databaseUrl: 'postgres://user:secret@127.0.0.1:5432/pets',
      seedPets: 5,
      shutdownTimeoutMs: 2500,
      logLevel: 'debug',
      docs: false,
    });
    expect(configOf(loadConfig({ API_KEYS: '', PORT: '', DATABASE_URL: ' ' })).keyGenerated).toBe(
      true,
    );
    expect(configOf(loadConfig({ PORT: '0' })).port).toBe(0);
  });

  it.each([
    ['abc', 'PORT must be an integer from 0 to 65535, got "abc"'],
    ['65536', 'PORT must be an integer from 0 to 65535, got "65536"'],
    ['-1', 'PORT must be an integer from 0 to 65535, got "-1"'],
    ['80.5', 'PORT must be an integer from 0 to 65535, got "80.5"'],
    ['1e3', 'PORT must be an integer from 0 to 65535, got "1e3"'],
  ])('refuses PORT=%s', (port, message) => {
    expect(errorsOf(loadConfig({ PORT: port }))).toEqual([message]);
  });

  it('refuses API keys that no Authorization header could carry, without printing them', () => {
    expect(errorsOf(loadConfig({ API_KEYS: 'good,,other' }))).toEqual([
      'API_KEYS entry 2 is empty (keys are separated by commas)',
    ]);
    const [message] = errorsOf(loadConfig({ API_KEYS: 'good,top secret' }));
    expect(message).toMatch(/^API_KEYS entry 2 has characters a bearer token cannot carry/);
    expect(message).not.toContain('secret');
  });

  it('refuses a DATABASE_URL that is not PostgreSQL, without printing it', () => {
    for (const url of ['mysql://root:hunter2@db/pets', 'not a url:hunter2']) {
      const errors = errorsOf(loadConfig({ DATABASE_URL: url }));
      expect(errors).toEqual(['DATABASE_URL must be a postgres:// or postgresql:// URL']);
    }
    expect(configOf(loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1/pets' })).databaseUrl).toBe(
      'postgresql://127.0.0.1/pets',
    );
  });

  it('bounds SEED_PETS and SHUTDOWN_TIMEOUT_MS', () => {
    expect(errorsOf(loadConfig({ SEED_PETS: String(MAX_SEED_PETS + 1) }))).toEqual([
      `SEED_PETS must be an integer from 0 to ${MAX_SEED_PETS}, got "${MAX_SEED_PETS + 1}"`,
    ]);
    expect(errorsOf(loadConfig({ SHUTDOWN_TIMEOUT_MS: 'soon' }))).toEqual([
      'SHUTDOWN_TIMEOUT_MS must be an integer from 0 to 600000, got "soon"',
    ]);
  });

  it('accepts the pino levels for LOG_LEVEL, and nothing else', () => {
    expect(configOf(loadConfig({ LOG_LEVEL: 'silent' })).logLevel).toBe('silent');
    expect(errorsOf(loadConfig({ LOG_LEVEL: 'verbose' }))).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]);
  });

  it('reports every problem at once', () => {
    expect(errorsOf(loadConfig({ PORT: 'x', SEED_PETS: 'y', API_KEYS: ',' }))).toHaveLength(3);
  });
});
