/**
 * The host function table: every env.json function of protocols ≤ 23, by `module.export`.
 *
 * @module
 */
import type { HostFn } from "../ctx.ts";
import { CONTEXT } from "./context.ts";
import { INT } from "./int.ts";
import { MAP, VEC } from "./map_vec.ts";
import { LEDGER } from "./ledger.ts";
import { CALL } from "./call.ts";
import { BUF } from "./buf.ts";
import { CRYPTO } from "./crypto.ts";
import { ADDRESS } from "./address.ts";
import { PRNG, TEST } from "./prng.ts";

const MODULES: [string, [string, HostFn][]][] = [
  ["x", CONTEXT],
  ["i", INT],
  ["m", MAP],
  ["v", VEC],
  ["l", LEDGER],
  ["d", CALL],
  ["b", BUF],
  ["c", CRYPTO],
  ["a", ADDRESS],
  ["t", TEST],
  ["p", PRNG],
];

/** Host functions by `"<module>.<export>"`. */
export const HOST_FUNCTIONS: Map<string, HostFn> = new Map(
  MODULES.flatMap(([m, fns]) => fns.map(([e, f]) => [`${m}.${e}`, f] as [string, HostFn])),
);

/** Host functions by name (for tests and documentation). */
export const HOST_FUNCTIONS_BY_NAME: Map<string, { key: string; fn: HostFn }> = new Map(
  [...HOST_FUNCTIONS].map(([key, fn]) => [fn.name, { key, fn }]),
);
