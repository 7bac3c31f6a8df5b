/**
 * Small leaf helpers with no dependency inside the repository: URL redaction and the safe
 * environment of Deno child processes.
 *
 * @module
 */
export * from "./url_redact.ts";
export * from "./deno_child.ts";
