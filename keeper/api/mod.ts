/**
 * The keeper's HTTP/SSE API (`createApi`) and its views.
 *
 * @module
 */
export * from "./server.ts";
