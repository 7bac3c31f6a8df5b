/**
 * `deno task build:web`: bundles the app's islands into `web/static/islands/` (what a
 * `deno compile` binary serves) and prints each file's size and the JavaScript each page loads
 * up front.
 *
 * @module
 */
import { bundleIslands, gzipSize, jsClosure } from "@vigil/ssr/bundle";
import { ISLANDS } from "./manifest.ts";
import { ISLANDS_DIR } from "./island_bundle.ts";

/** The islands each page loads up front (for the size report). */
const PAGES: [string, string[]][] = [
  ["/", ["WalletButton", "LiveLog"]],
  ["/vault", ["WalletButton", "VaultPanel", "KeeperPanel"]],
  ["/dashboard, keepers, liquidations, [address]", ["WalletButton"]],
  ["/dashboard/depositor", ["WalletButton", "DepositorLookup"]],
];

if (import.meta.main) {
  const b = await bundleIslands({ islands: ISLANDS, outDir: ISLANDS_DIR });
  let total = 0;
  for (const [name, f] of [...b.files].sort()) {
    total += f.body.length;
    console.log(`${name.padEnd(32)} ${(f.body.length / 1024).toFixed(1).padStart(8)} KiB`);
  }
  console.log(`${b.files.size} files, ${(total / 1024).toFixed(1)} KiB in ${b.ms} ms`);
  console.log("\nJavaScript loaded up front per page (raw / gzip):");
  for (const [page, islands] of PAGES) {
    const c = jsClosure(b, islands);
    const gz = await gzipSize(b, c.files);
    console.log(
      `${page.padEnd(46)} ${(c.bytes / 1024).toFixed(1).padStart(7)} KiB / ${
        (gz / 1024).toFixed(1).padStart(6)
      } KiB`,
    );
  }
}
