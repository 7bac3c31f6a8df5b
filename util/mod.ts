/**
 * Small leaf helpers with no dependency inside the repository: URL redaction, the safe
 * environment of Deno child processes, and env/dotenv reading.
 *
 * @module
 */
export * from "./url_redact.ts";
export * from "./deno_child.ts";
export * from "./env.ts";
