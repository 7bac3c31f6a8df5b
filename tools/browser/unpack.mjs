// Unpacks the Chromium that @sparticuz/chromium ships brotli-packed inside its npm tarball into
// ./chromium/ (no download: the package's own `executablePath()` inflates its bundled files into
// the temporary directory, which is pointed here so the result stays next to the package).
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const out = fileURLToPath(new URL("./chromium/", import.meta.url));
rmSync(out, { recursive: true, force: true }); // never reuse a half-written binary
mkdirSync(out, { recursive: true });
process.env.TMPDIR = out;
const { default: Chromium } = await import("@sparticuz/chromium");
const exe = await Chromium.executablePath();
console.log(`chromium unpacked: ${exe}`);
