// Minimal types for npm:dotenv. Its own d.ts starts with `/// <reference types="node" />`, which
// makes `deno check` drop Deno's built-in node types (`node:assert` etc.) for the whole program.
/** Parses `.env` text into key/value pairs (npm dotenv's `parse`). */
export function parse(src: string): Record<string, string>;
declare const dotenv: { parse: typeof parse };
export default dotenv;
