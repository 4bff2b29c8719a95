/** A command-line option's whole number from `min` to `max`, or an error naming the option. */
export function wholeNumber(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`--${name}: a whole number from ${min} to ${max}, got ${text}`);
  }
  return value;
}
