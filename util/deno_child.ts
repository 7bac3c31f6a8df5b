/**
 * How this program (and its tests) start Deno child processes: the demo's keepers, the island
 * bundler, the tests' keepers and CLI runs. Server-side only.
 *
 * - **Environment**: a child starts with a cleared environment plus only the variables named in
 *   {@link SAFE_ENV_VARS} — paths, Deno's and cargo's caches, certificates and proxies — so that TLS and the
 *   network behave as in the parent (an operator's corporate CA, a proxy), while the parent's own
 *   configuration and secrets (`KEEPER_SECRET`, `DEPLOYER_SECRET`, …) never reach it unless the
 *   caller passes them explicitly.
 * - **No download at run time**: every `deno run`/`deno test` child gets {@link NO_FETCH_FLAGS}:
 *   `--cached-only` (a package missing from the cache is an error, never a silent download) and
 *   `--frozen` (the lock file `deno.lock` is used and must already hold every package). `npm ci`
 *   fills the cache once (`deno task setup`).
 *
 * @module
 */

/** Variables a Deno child may inherit: none of them carries a secret of the program. */
export const SAFE_ENV_VARS: readonly string[] = [
  // Where things are.
  "PATH",
  "HOME",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "TZ",
  "XDG_CACHE_HOME",
  "NO_COLOR",
  // Deno's cache and its TLS settings.
  "DENO_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "DENO_NO_UPDATE_CHECK",
  "DENO_NO_PROMPT",
  // Certificates (a corporate CA) for Deno and Node-compatible code.
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  // Proxies, in both spellings.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  // Which npm registry the cache was filled from (Deno keys its npm cache by registry).
  "NPM_CONFIG_REGISTRY",
  "npm_config_registry",
  // Where cargo keeps the crates `npm ci` fetched (Blend's Wasm) and which toolchain runs it.
  "CARGO",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
];

/** Flags for every `deno run` / `deno test` child: use the lock file, never download. */
export const NO_FETCH_FLAGS: readonly string[] = ["--cached-only", "--frozen"];

/** The project's `deno.json` (import map, lock file), for children started in another directory. */
export const DENO_CONFIG: string = new URL("../deno.json", import.meta.url).pathname;

/**
 * The environment for a Deno child: the safe variables present in `from` (default: this
 * process's environment), then `extra` (which wins). Pass it with `clearEnv: true`.
 */
export function childEnv(
  extra: Record<string, string> = {},
  from: Record<string, string | undefined> = Deno.env.toObject(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of SAFE_ENV_VARS) {
    const v = from[k];
    if (v !== undefined) out[k] = v;
  }
  return { ...out, ...extra };
}

/** `deno run` arguments for a script of this project: all permissions, lock file, cache only. */
export function denoRunArgs(script: string | URL, args: string[] = []): string[] {
  const path = script instanceof URL ? script.pathname : script;
  return ["run", "-A", ...NO_FETCH_FLAGS, "--config", DENO_CONFIG, path, ...args];
}
