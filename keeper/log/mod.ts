/** keeper/log: see `logger.ts`. @module */
export * from "./logger.ts";
