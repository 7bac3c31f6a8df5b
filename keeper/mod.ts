/**
 * The keeper daemon: `runKeeper()` (configuration, HTTP/SSE API, start-up and the cycle), and
 * the pieces an embedding program mounts (the API app, the configuration loader).
 *
 * @module
 */
export * from "./daemon.ts";
