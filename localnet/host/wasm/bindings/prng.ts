/**
 * Modules `p` (prng) and `t` (test). The PRNG is ChaCha20 (as in the real host) keyed by a
 * frame-local seed: each frame draws its seed from the invocation's base PRNG, whose seed is
 * derived from the invocation (ledger, source, host function), so a simulation and the
 * transaction it describes see the same numbers. `prng_reseed` replaces the frame's seed.
 * Sampling algorithms differ from rand_core's, so values differ from the real network's.
 *
 * @module
 */
import { chacha20 } from "@noble/ciphers/chacha";
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr } from "../objects.ts";
import { u64, VOID } from "../val.ts";

const NONCE = new Uint8Array(12);
const BLOCK = 4096;

function stream(seed: Uint8Array, counter: number): Uint8Array {
  return chacha20(seed, NONCE, new Uint8Array(BLOCK), undefined, counter);
}

function prng(c: VmCtx) {
  if (!c.prng) {
    const base = c.shared.baseSeed;
    const sub = stream(base, c.shared.subSeeds++ * (BLOCK / 64)).slice(0, 32);
    c.prng = { seed: sub, buf: stream(sub, 0), pos: 0, counter: BLOCK / 64 };
  }
  return c.prng;
}

function take(c: VmCtx, n: number): Uint8Array {
  const p = prng(c);
  const out = new Uint8Array(n);
  let o = 0;
  while (o < n) {
    if (p.pos >= p.buf.length) {
      p.buf = stream(p.seed, p.counter);
      p.counter += BLOCK / 64;
      p.pos = 0;
    }
    const k = Math.min(n - o, p.buf.length - p.pos);
    out.set(p.buf.subarray(p.pos, p.pos + k), o);
    p.pos += k;
    o += k;
  }
  return out;
}

function nextU64(c: VmCtx): bigint {
  const b = take(c, 8);
  return new DataView(b.buffer).getBigUint64(0, true);
}

/** Uniform in [lo, hi] by rejection sampling. */
function inRange(c: VmCtx, lo: bigint, hi: bigint): bigint {
  const span = hi - lo + 1n;
  if (span === 1n << 64n) return nextU64(c);
  const zone = (1n << 64n) - ((1n << 64n) % span);
  for (;;) {
    const x = nextU64(c);
    if (x < zone) return lo + (x % span);
  }
}

export const PRNG: [string, HostFn][] = [
  [
    "_",
    hf("prng_reseed", 1, (c, s) => {
      const seed = c.bytes(s);
      if (seed.length !== 32) throw valErr("Value", "UnexpectedSize", "seed must be 32 bytes");
      const sd = Uint8Array.from(seed);
      c.prng = { seed: sd, buf: stream(sd, 0), pos: 0, counter: BLOCK / 64 };
      return VOID;
    }),
  ],
  [
    "0",
    hf("prng_bytes_new", 1, (c, l) => {
      const n = c.u32(l);
      c.charge(n * 4);
      return c.newBytes(take(c, n));
    }),
  ],
  [
    "1",
    hf("prng_u64_in_inclusive_range", 2, (c, lo, hi) => {
      const a = u64(lo);
      const b = u64(hi);
      if (a > b) throw valErr("Value", "InvalidInput", "low bound greater than high bound");
      return inRange(c, a, b);
    }),
  ],
  [
    "2",
    hf("prng_vec_shuffle", 1, (c, v) => {
      const out = c.vec(v).slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Number(inRange(c, 0n, BigInt(i)));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return c.rel(c.store.newVec(out));
    }),
  ],
];

export const TEST: [string, HostFn][] = [
  ["_", hf("dummy0", 0, () => VOID)],
];
