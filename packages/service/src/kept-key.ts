import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type AppConfig, isUsableKey } from './config.js';
import { DATA_FILE_MODE, ownerOnlyFolder } from './data-folder.js';

/** The generated key's file, beside the default SQLite file. */
export const KEY_FILE_NAME = 'api-key';

const codeOf = (error: unknown): unknown => Reflect.get(Object(error), 'code');

/** The key in `file`; never follows a link; a file others could read is set to its owner alone. */
async function readKey(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error) => {
    throw codeOf(error) === 'ELOOP'
      ? new Error(`${file} is a symbolic link: the key is read only from a file of its own`)
      : error;
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${file} is not a file`);
    if ((stat.mode & 0o077) !== 0) await handle.chmod(DATA_FILE_MODE);
    const key = (await handle.readFile('utf8')).trim();
    // Its text is a secret: the message says what to do, never what it holds.
    if (!isUsableKey(key)) {
      throw new Error(`${file} holds no usable API key: delete it for a new one, or set API_KEYS`);
    }
    return key;
  } finally {
    await handle.close();
  }
}

/**
 * Writes `key` to `file` (0600) unless a key is there already; whichever process links its
 * complete file first wins, and the others read that one. The key reaches `file` only whole.
 */
async function writeKey(file: string, key: string): Promise<void> {
  // A name of its own: another start (in this process or another) may be writing one too.
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const flags = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;
  const handle = await open(draft, flags, DATA_FILE_MODE);
  try {
    await handle.chmod(DATA_FILE_MODE);
    await handle.writeFile(`${key}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(draft, file);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
}

/**
 * A generated key that outlives the process: with the default SQLite file (whose pets survive a
 * restart), the key generated at the first start is kept in `api-key` beside it, readable by its
 * owner alone, and used again at every start. API_KEYS, or another storage, leaves `config` as
 * it is (a key of its own at each start).
 */
export async function withKeptKey(config: AppConfig): Promise<AppConfig> {
  const { storage } = config;
  const generated = config.apiKeys[0];
  if (!config.keyGenerated || storage.kind !== 'sqlite' || !storage.byDefault) return config;
  if (typeof generated !== 'string') return config;
  const dir = dirname(storage.path);
  await ownerOnlyFolder(dir);
  const file = join(dir, KEY_FILE_NAME);
  const key = await readKey(file).catch(async (error: unknown) => {
    if (codeOf(error) !== 'ENOENT') throw error;
    await writeKey(file, generated);
    return readKey(file);
  });
  return { ...config, apiKeys: [key], keyFile: file };
}
