/**
 * The web app: `createWebApp` (pages, island bundles, static files, the local dev wallet) and `mountWeb`, which mounts it on the keeper's API app.
 *
 * @module
 */
export * from "./server.ts";
