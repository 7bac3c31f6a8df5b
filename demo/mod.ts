/** demo: see `demo.ts`. @module */
export * from "./demo.ts";
