/**
 * Progress on stderr: what runs now, and how long the rest should take. The ETA
 * scales the remaining planned seconds by how the finished steps compared with
 * their plan, so a slow machine gets an honest estimate after the first steps.
 */
export class Progress {
  readonly #started = performance.now();
  #plannedTotal = 0;
  #plannedDone = 0;
  #quiet: boolean;

  constructor(options: { quiet?: boolean } = {}) {
    this.#quiet = options.quiet ?? false;
  }

  /** Adds a step's expected seconds to the plan (call before running anything). */
  plan(seconds: number): void {
    this.#plannedTotal += seconds;
  }

  /** Marks planned seconds as done. */
  done(seconds: number): void {
    this.#plannedDone += seconds;
  }

  get elapsedSeconds(): number {
    return (performance.now() - this.#started) / 1000;
  }

  log(message: string): void {
    if (this.#quiet) return;
    const elapsed = this.elapsedSeconds;
    const remainingPlanned = Math.max(0, this.#plannedTotal - this.#plannedDone);
    const pace = this.#plannedDone > 5 ? elapsed / this.#plannedDone : 1;
    const eta = remainingPlanned * Math.max(pace, 0.5);
    process.stderr.write(`[${clock(elapsed)} elapsed, ETA ${clock(eta)}] ${message}\n`);
  }
}

const clock = (seconds: number): string => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
};
