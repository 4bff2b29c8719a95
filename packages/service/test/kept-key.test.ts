import { existsSync } from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppConfig, loadConfig } from '../src/config.js';
import { withKeptKey } from '../src/kept-key.js';

// The generated key kept beside the default SQLite file: made once, whole, its owner's alone,
// never through a link, and never quoted when it is not usable.
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A config on the default SQLite file under a data home of its own, with a generated key. */
async function generated(key = `generated-${Math.random().toString(36).slice(2)}-key`) {
  const home = await mkdtemp(join(tmpdir(), 'petstore-kept-key-'));
  dirs.push(home);
  const loaded = loadConfig({ XDG_DATA_HOME: home }, () => key);
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  return { config: loaded.config, folder: join(home, 'petstore'), key };
}

const keyOf = (config: AppConfig): unknown => config.apiKeys[0];

describe('withKeptKey', () => {
  it('two services starting at once on one data folder end with one key', async () => {
    const first = await generated('first-generated-key-0123');
    const second = { ...first.config, apiKeys: ['second-generated-key-0123'] };
    const [a, b] = await Promise.all([withKeptKey(first.config), withKeptKey(second)]);
    expect(keyOf(a)).toBe(keyOf(b));
    const file = join(first.folder, 'api-key');
    expect((await readFile(file, 'utf8')).trim()).toBe(keyOf(a));
    // No draft left behind.
    expect(await readdir(first.folder)).toEqual(['api-key']);
  });

  it('a key file others could read is set to its owner alone, and used', async () => {
    const { config, folder } = await generated();
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'api-key'), 'kept-earlier-key-0123456789\n', { mode: 0o644 });
    await chmod(join(folder, 'api-key'), 0o644);
    expect(keyOf(await withKeptKey(config))).toBe('kept-earlier-key-0123456789');
    expect((await stat(join(folder, 'api-key'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a link where the key should be, and creates nothing through it', async () => {
    const { config, folder } = await generated();
    await mkdir(folder, { recursive: true });
    const target = join(folder, '..', 'elsewhere');
    await symlink(target, join(folder, 'api-key'));
    await expect(withKeptKey(config)).rejects.toThrow(/api-key is a symbolic link/);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a file that holds no usable key, without quoting it', async () => {
    const { config, folder } = await generated();
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'api-key'), 'short secret\n');
    const refused = withKeptKey(config);
    await expect(refused).rejects.toThrow(/holds no usable API key: delete it for a new one/);
    await expect(refused).rejects.not.toThrow(/short secret/);
  });

  it('leaves API_KEYS and every other storage alone', async () => {
    const home = await mkdtemp(join(tmpdir(), 'petstore-kept-key-'));
    dirs.push(home);
    for (const env of [
      { API_KEYS: 'chosen-key-0123456789' },
      { DATABASE_URL: 'memory:' },
      { DATABASE_URL: `sqlite:${join(home, 'named.db')}` },
    ]) {
      const loaded = loadConfig({ XDG_DATA_HOME: home, ...env });
      if (!loaded.ok) throw new Error(loaded.errors.join('; '));
      expect(await withKeptKey(loaded.config)).toBe(loaded.config);
    }
    expect(await readdir(home)).toEqual([]);
  });
});
