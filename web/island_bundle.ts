/**
 * The app's island bundle: its islands (`manifest.ts`) bundled by `@vigil/ssr`, once per process
 * and shared by every web app instance; a compiled binary reads the files `build_islands.ts`
 * wrote to `static/islands/` (embedded by `deno compile --include web/static`).
 *
 * @module
 */
import { type IslandBundle, sharedIslandBundle } from "@vigil/ssr/bundle";
import { ISLANDS } from "./manifest.ts";

/** Where `deno task build:web` writes the prebuilt islands (under the served static files). */
export const ISLANDS_DIR: string = new URL("./static/islands/", import.meta.url).pathname;

/** The island bundle for this process (built on first call; a failure is retried next call). */
export const getIslandBundle: () => Promise<IslandBundle> = sharedIslandBundle({
  islands: ISLANDS,
  prebuiltDir: ISLANDS_DIR,
});
