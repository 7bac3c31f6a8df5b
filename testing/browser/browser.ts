/**
 * Headless Chromium through `playwright-core`, with a fresh profile per launch, and a
 * console/page-error collector for each page.
 *
 * Which Chromium ({@link findChromium}): `CHROMIUM_PATH` when set; otherwise the system's
 * (Debian `chromium`) when installed; otherwise the one `npm ci` unpacked from the
 * `@sparticuz/chromium` npm package into `tools/browser/chromium/` (its binary ships inside the
 * package's tarball; nothing is downloaded). `VIGIL_BROWSER=npm` skips the system one (CI uses it
 * to prove the fresh-machine path).
 *
 * @module
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Where Debian installs Chromium (`apt-get install -y chromium`). */
export const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** Where `npm ci` (tools/browser's postinstall) unpacks the npm-shipped Chromium. */
export const NPM_CHROMIUM = new URL("../../tools/browser/chromium/chromium", import.meta.url)
  .pathname;

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The Chromium executable to launch, or an error naming the ways to get one. */
export function findChromium(env: Record<string, string | undefined> = Deno.env.toObject()): {
  path: string;
  source: "CHROMIUM_PATH" | "system" | "npm";
} {
  if (env.CHROMIUM_PATH) return { path: env.CHROMIUM_PATH, source: "CHROMIUM_PATH" };
  if (env.VIGIL_BROWSER !== "npm" && isFile(SYSTEM_CHROMIUM)) {
    return { path: SYSTEM_CHROMIUM, source: "system" };
  }
  if (isFile(NPM_CHROMIUM)) return { path: NPM_CHROMIUM, source: "npm" };
  throw new Error(
    `no Chromium found: ${NPM_CHROMIUM} is missing (run \`npm ci\`, which unpacks the ` +
      `@sparticuz/chromium package there)` +
      (env.VIGIL_BROWSER === "npm" ? "" : `, and ${SYSTEM_CHROMIUM} is not installed`) +
      `; or set CHROMIUM_PATH`,
  );
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A launched browser with its own profile directory. */
export interface TestBrowser extends AsyncDisposable {
  context: BrowserContext;
  /** A new page whose console errors and uncaught exceptions are collected. */
  newPage(viewport?: { width: number; height: number }): Promise<WatchedPage>;
  close(): Promise<void>;
}

/** A page plus the errors it reported. */
export interface WatchedPage {
  page: Page;
  errors: string[];
}

/** Desktop and phone viewports used by the tests and the screenshot task. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 860 },
  phone: { width: 390, height: 844 },
} as const;

/** Launches Chromium with a fresh `--user-data-dir`. */
export async function launchBrowser(): Promise<TestBrowser> {
  const dir = await Deno.makeTempDir({ prefix: "vigil-chromium-" });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(dir, {
      executablePath: findChromium().path,
      headless: true,
      args: FLAGS,
      viewport: VIEWPORTS.desktop,
    });
  } catch (e) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw e;
  }
  const close = async () => {
    await context.close().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  return {
    context,
    async newPage(viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
      page.on("requestfailed", (r) => {
        // Aborted navigations of a page we are leaving are not failures of the page.
        const f = r.failure()?.errorText ?? "";
        if (!f.includes("ERR_ABORTED")) errors.push(`requestfailed: ${r.url()} ${f}`);
      });
      return { page, errors };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Waits until every island on the page has hydrated. */
export async function waitHydrated(page: Page, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelectorAll("[data-island]").length ===
        document.querySelectorAll("[data-island][data-hydrated]").length,
    undefined,
    { timeout },
  );
}
