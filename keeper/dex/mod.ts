/** keeper/dex: see `swap_client.ts`. @module */
export * from "./swap_client.ts";
