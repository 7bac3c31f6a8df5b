/**
 * A small Fresh-shaped server renderer: Preact SSR of routes with islands, island bundling and
 * hydration, prop serialization, and the app factory that serves it all. The app hands it its
 * routes, islands, wrapper and state; it never imports the app.
 *
 * @module
 */
export * from "./app.ts";
export * from "./render.tsx";
export * from "./serialize.ts";
export * from "./bundle.ts";
export type * from "./types.ts";
