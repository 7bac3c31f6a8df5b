/**
 * The local market's DEX: two Soroswap-ABI venues (Wasm factory/pair/router, sources in
 * `localnet/protocols/dex/contracts/soroswap_*`), Soroswap's quote maths for clients, and the deploy helper.
 * See `README.md` in this folder.
 *
 * @module
 */
export * from "./math.ts";
export { deployDexes, deployVenue, DEX_WASM_FILES, loadDexWasm, seedPair } from "./deploy.ts";
export type {
  DexDeployment,
  DexDeployOptions,
  DexHost,
  DexVenue,
  DexWasm,
  LiquiditySeed,
} from "./deploy.ts";
