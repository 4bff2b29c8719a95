import { chmod, mkdir } from 'node:fs/promises';

/** Owner only: the pets and the kept key are nobody else's to read. */
export const DATA_FOLDER_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

/**
 * The service's own data folder (the default one, under the user's data home), made when missing
 * and set to its owner alone when it was there already with more: mkdir's mode passes through
 * the umask and leaves an existing folder as it was.
 */
export async function ownerOnlyFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DATA_FOLDER_MODE });
  await chmod(dir, DATA_FOLDER_MODE);
}
