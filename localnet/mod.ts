/** localnet: see `node.ts`. @module */
export * from "./node.ts";
