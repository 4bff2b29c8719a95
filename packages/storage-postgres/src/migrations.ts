import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/** One SQL file from the package's `migrations/` folder. */
export interface Migration {
  /** From the file name's leading digits: `001_init.sql` is version 1. */
  readonly version: number;
  /** File name without `.sql`: `001_init`. */
  readonly name: string;
  readonly sql: string;
  /** sha256 of the file, recorded when applied, so an edited migration is noticed. */
  readonly checksum: string;
}

const FILE_NAME = /^(\d{3,})_[a-z0-9_]+\.sql$/;

// `src/` and `dist/` both sit one level below the package root, beside `migrations/`.
const MIGRATIONS_DIR = new URL('../migrations/', import.meta.url);

/** The package's migrations, in version order. */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => FILE_NAME.test(file)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const sql = await readFile(new URL(file, dir), 'utf8');
    migrations.push({
      version: Number(FILE_NAME.exec(file)?.[1]),
      name: file.slice(0, -'.sql'.length),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  const versions = new Set(migrations.map((m) => m.version));
  if (versions.size !== migrations.length) throw new Error('two migration files share a version');
  return migrations;
}
