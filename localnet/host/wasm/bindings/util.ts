/**
 * Linear-memory helpers shared by several modules.
 *
 * @module
 */
import type { VmCtx } from "../ctx.ts";

/** Reads `len` Vals (8 bytes each, little-endian) at `pos`, as absolute Vals. */
export function readSliceVals(c: VmCtx, pos: number, len: number): bigint[] {
  c.memSlice(pos, len * 8);
  const dv = c.memView();
  const out: bigint[] = [];
  for (let i = 0; i < len; i++) {
    const v = c.abs(dv.getBigUint64(pos + i * 8, true));
    c.store.check(v);
    out.push(v);
  }
  return out;
}
