const warned = new Set<string>();

/**
 * Says once per process that an option was renamed, as Node's own deprecations do
 * (`process.emitWarning`, shown unless `--no-deprecation`), and returns the value to use:
 * the new option's if both are given.
 */
export function renamedOption<T>(
  where: string,
  oldName: string,
  newName: string,
  oldValue: T | undefined,
  newValue: T | undefined,
): T | undefined {
  if (oldValue === undefined) return newValue;
  const code = `PETSTORE_${where}_${oldName}`.replace(/\W+/g, '_').toUpperCase();
  if (!warned.has(code)) {
    warned.add(code);
    const message = `${where}: the option \`${oldName}\` is now \`${newName}\`; \`${oldName}\` is still read until the next minor version.`;
    const emit = (globalThis as { process?: { emitWarning?: (...args: unknown[]) => void } })
      .process?.emitWarning;
    if (typeof emit === 'function') emit(message, { type: 'DeprecationWarning', code });
    else console.warn(message);
  }
  return newValue ?? oldValue;
}
