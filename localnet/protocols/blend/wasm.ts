/**
 * Blend v2's Wasm, from the crates.io package `blend-contract-sdk` (MIT, Blend Capital) that
 * `localnet/protocols/blend/crate/Cargo.toml` pins. `npm ci` runs `cargo fetch --locked` on that manifest, which
 * puts the crate in cargo's cache; this module finds the crate's folder through
 * `cargo metadata --offline` (never a download) and reads its `wasm/*.wasm`. Nothing of the crate
 * is committed to this repository.
 *
 * @module
 */
import { childEnv } from "@vigil/util/deno_child";

/** The manifest that pins the crate. */
export const BLEND_MANIFEST: string = new URL("./crate/Cargo.toml", import.meta.url)
  .pathname;

/** The crate that ships the Wasm. */
export const BLEND_CRATE = "blend-contract-sdk";

/** The Wasm files the crate ships (`wasm/<name>.wasm`). */
export const BLEND_WASM_NAMES = [
  "pool",
  "backstop",
  "emitter",
  "pool_factory",
  "comet",
  "comet_factory",
] as const;

/** One of {@link BLEND_WASM_NAMES}. */
export type BlendWasmName = typeof BLEND_WASM_NAMES[number];

/** The crate found in cargo's cache. */
export interface BlendCrate {
  version: string;
  license: string;
  /** The crate's folder in cargo's cache. */
  dir: string;
  /** The Wasm files, by name. */
  wasm: Record<BlendWasmName, Uint8Array>;
}

const FIX =
  "run `npm ci` (it runs `cargo fetch --locked --manifest-path localnet/protocols/blend/crate/Cargo.toml`)";

/**
 * Locates the crate with `cargo metadata --format-version 1 --locked --offline` and reads its
 * Wasm. Throws a message naming the fix when cargo is missing or the crate was not fetched.
 * `cargo` is `$CARGO` when set (as cargo itself sets it), else the one on `PATH`.
 */
export async function loadBlendWasm(manifest: string = BLEND_MANIFEST): Promise<BlendCrate> {
  const cargo = Deno.env.get("CARGO") ?? "cargo";
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(cargo, {
      args: [
        "metadata",
        "--format-version",
        "1",
        "--locked",
        "--offline",
        "--manifest-path",
        manifest,
      ],
      // Paths, caches, certificates and proxies (cargo's and rustup's homes among them); none of
      // this program's secrets.
      env: childEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Error(
        `Blend Wasm: \`${cargo}\` not found (Rust's cargo is needed); install it, then ${FIX}`,
      );
    }
    throw e;
  }
  if (!out.success) {
    // Cargo's own first line says what is missing ("no matching package named … found").
    const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
    const err = (lines.find((l) => l.startsWith("error:")) ?? lines[0] ?? "").replace(
      /^error: /,
      "",
    );
    throw new Error(`Blend Wasm: cargo metadata failed (${err}); ${FIX}`);
  }
  const meta = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    packages: { name: string; version: string; license?: string; manifest_path: string }[];
  };
  const pkg = meta.packages.find((p) => p.name === BLEND_CRATE);
  if (!pkg) throw new Error(`Blend Wasm: ${BLEND_CRATE} is not a dependency of ${manifest}`);
  const dir = pkg.manifest_path.replace(/\/Cargo\.toml$/, "");
  const wasm = {} as Record<BlendWasmName, Uint8Array>;
  for (const name of BLEND_WASM_NAMES) {
    const path = `${dir}/wasm/${name}.wasm`;
    try {
      wasm[name] = await Deno.readFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new Error(`Blend Wasm: ${path} is missing; ${FIX}`);
      }
      throw e;
    }
  }
  return { version: pkg.version, license: pkg.license ?? "", dir, wasm };
}
