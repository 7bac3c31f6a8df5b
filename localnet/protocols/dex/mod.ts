/**
 * DEX stand-ins for the local node: the Soroswap router/factory/pair (primary venue) and the
 * Phoenix multihop/factory/XYK pool (fallback venue), their quote maths and deploy helper.
 * See `README.md` in this folder for how they map to the real protocols.
 *
 * @module
 */
export { soroswapFactory } from "./soroswap/factory.ts";
export { soroswapPair } from "./soroswap/pair.ts";
export { ROUTER_ERRORS, soroswapRouter } from "./soroswap/router.ts";
export { PHOENIX_FACTORY_ERRORS, phoenixFactory } from "./phoenix/factory.ts";
export { PHOENIX_POOL_ERRORS, phoenixPool } from "./phoenix/pool.ts";
export { MULTIHOP_ERRORS, phoenixMultihop } from "./phoenix/multihop.ts";
export * from "./math.ts";
export { deployDexes } from "./deploy.ts";
export type { DexDeployment, DexDeployOptions, DexHost, LiquiditySeed } from "./deploy.ts";
