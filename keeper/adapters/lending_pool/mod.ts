/** keeper/adapters/lending_pool: see `lending_pool_adapter.ts`. @module */
export * from "./lending_pool_adapter.ts";
