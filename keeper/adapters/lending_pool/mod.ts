/**
 * The lending-pool adapter: finds liquidatable Blend positions and fills their auctions with a flash loan.
 *
 * @module
 */
export * from "./lending_pool_adapter.ts";
