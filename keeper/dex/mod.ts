/**
 * Swaps for the keeper: the swap client over Soroswap-ABI routers, flash paths and slippage floors.
 *
 * @module
 */
export * from "./swap_client.ts";
