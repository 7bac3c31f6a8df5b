/**
 * `main.ts demo`: the local node, the market, keepers and the pages in one command.
 *
 * @module
 */
export * from "./demo.ts";
