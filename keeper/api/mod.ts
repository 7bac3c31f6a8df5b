/** keeper/api: see `server.ts`. @module */
export * from "./server.ts";
