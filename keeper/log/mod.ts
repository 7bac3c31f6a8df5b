/**
 * The keeper's structured logger (JSON lines, a ring for the API, secrets redacted).
 *
 * @module
 */
export * from "./logger.ts";
