/**
 * Test fixtures shared by tests, benches and tools: the in-process node helpers, contract
 * fixtures, keeper and web stacks. Imported only by tests, benches and tools.
 *
 * @module
 */
export * from "./localnet.ts";
