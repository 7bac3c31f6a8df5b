/**
 * The local Soroban node, in process: `startLocalnet()` and the `Localnet` handle (a dev tool; the product never imports it).
 *
 * @module
 */
export * from "./node.ts";
