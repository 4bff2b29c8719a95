import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { chromium, type Page } from 'playwright-core';

/** Debian's Chromium: `.ci/run` installs it with apt-get when missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM_PATH);

export interface PageVisit {
  /** Every URL the page requested, in order (documents, scripts, fetches, fonts...). */
  readonly requests: readonly string[];
  /** Console messages of type `error`, and uncaught page errors. */
  readonly errors: readonly string[];
  /**
   * Every Content-Security-Policy violation the page reported (`securitypolicyviolation`
   * events: directive, blocked URI, source), including those of code that caught the refusal.
   */
  readonly cspViolations: readonly string[];
}

/** Runs in the page before any of its scripts: a record of every CSP violation it reports. */
const RECORD_CSP_VIOLATIONS = `(() => {
  const seen = [];
  Object.defineProperty(window, '__cspViolations', { value: seen });
  document.addEventListener('securitypolicyviolation', (event) => {
    seen.push(event.effectiveDirective + ' ' + event.blockedURI + ' at ' + event.sourceFile + ':' + event.lineNumber);
  });
})();`;

/**
 * Opens `url` in a fresh headless Chromium (a fresh profile, no background networking), lets
 * `inspect` look at the page, saves a full-page screenshot to `screenshotPath`, and closes the
 * browser: the process it started, nothing else.
 */
export async function visitInChromium(
  url: string,
  screenshotPath: string,
  inspect: (page: Page) => Promise<void>,
): Promise<PageVisit> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const requests: string[] = [];
  const errors: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
    await page.addInitScript({ content: RECORD_CSP_VIOLATIONS });
    await page.goto(url, { waitUntil: 'networkidle' });
    await mkdir(dirname(screenshotPath), { recursive: true });
    await inspect(page);
    await page.screenshot({ path: screenshotPath, fullPage: false });
    const cspViolations = (await page.evaluate('window.__cspViolations')) as string[];
    return { requests, errors, cspViolations };
  } finally {
    // playwright gave it a fresh temporary profile, and removes it here.
    await browser.close();
  }
}
