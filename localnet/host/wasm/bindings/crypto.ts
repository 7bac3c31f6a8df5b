/**
 * Module `c` (crypto): hashes, signature checks and BLS12-381, all through the audited
 * @noble libraries (and the node's existing ed25519 verifier).
 *
 * @module
 */
import { keccak_256 } from "@noble/hashes/sha3";
import { secp256k1 } from "@noble/curves/secp256k1";
import { p256 } from "@noble/curves/nist";
import { bls12_381 } from "@noble/curves/bls12-381";
import { verifyEd25519 } from "../../../sig.ts";
import { sha256 } from "../../auth.ts";
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr, ValError } from "../objects.ts";
import { boolVal, Tag, VOID } from "../val.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const cryptoErr = (msg: string) => valErr("Crypto", "InvalidInput", msg);

function sized(c: VmCtx, v: bigint, n: number, what: string): Uint8Array {
  const b = c.bytes(v);
  if (b.length !== n) throw valErr("Crypto", "InvalidInput", `${what} must be ${n} bytes`);
  return b;
}

const G1 = bls12_381.G1.Point as Any;
const G2 = bls12_381.G2.Point as Any;
const Fr = bls12_381.fields.Fr;
const FR_ORDER = Fr.ORDER;

function g1(c: VmCtx, v: bigint): Any {
  const b = sized(c, v, 96, "G1 point");
  if (b[0] & 0x80) throw cryptoErr("G1 point must be uncompressed");
  try {
    return G1.fromBytes(b);
  } catch {
    throw cryptoErr("invalid G1 point");
  }
}

function g2(c: VmCtx, v: bigint): Any {
  const b = sized(c, v, 192, "G2 point");
  if (b[0] & 0x80) throw cryptoErr("G2 point must be uncompressed");
  try {
    return G2.fromBytes(b);
  } catch {
    throw cryptoErr("invalid G2 point");
  }
}

function u256(c: VmCtx, v: bigint): bigint {
  return c.num256(v, false);
}

function fr(c: VmCtx, v: bigint): bigint {
  return u256(c, v) % FR_ORDER;
}

function retU256(c: VmCtx, n: bigint): bigint {
  return c.rel(c.store.num(Tag.U256Object, n));
}

function mulPoint(p: Any, s: bigint): Any {
  return s === 0n ? p.constructor.ZERO : p.multiply(s);
}

function fromBe(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

function fp(b: Uint8Array): bigint {
  const n = fromBe(b);
  if (n >= bls12_381.fields.Fp.ORDER) throw cryptoErr("field element out of range");
  return n;
}

function dst(c: VmCtx, v: bigint): Uint8Array {
  const d = c.bytes(v);
  if (d.length === 0 || d.length > 255) throw cryptoErr("DST must be 1..255 bytes");
  return d;
}

export const CRYPTO: [string, HostFn][] = [
  [
    "_",
    hf("compute_hash_sha256", 1, (c, x) => {
      const b = c.bytes(x);
      c.charge(b.length * 20);
      return c.newBytes(sha256(b));
    }),
  ],
  [
    "0",
    hf("verify_sig_ed25519", 3, (c, k, x, s) => {
      const pk = sized(c, k, 32, "ed25519 public key");
      const sig = sized(c, s, 64, "ed25519 signature");
      const msg = c.bytes(x);
      c.charge(400_000 + msg.length * 20);
      if (!verifyEd25519(pk, msg, sig)) throw cryptoErr("failed ED25519 verification");
      return VOID;
    }),
  ],
  [
    "1",
    hf("compute_hash_keccak256", 1, (c, x) => {
      const b = c.bytes(x);
      c.charge(b.length * 30);
      return c.newBytes(keccak_256(b));
    }),
  ],
  [
    "2",
    hf("recover_key_ecdsa_secp256k1", 3, (c, d, s, r) => {
      const digest = sized(c, d, 32, "message digest");
      const sig = sized(c, s, 64, "signature");
      const rid = c.u32(r);
      if (rid > 3) throw cryptoErr("invalid recovery id");
      c.charge(2_000_000);
      try {
        const parsed = secp256k1.Signature.fromCompact(sig);
        if (parsed.hasHighS()) throw cryptoErr("signature s is not normalized (low-s)");
        const pk = parsed.addRecoveryBit(rid).recoverPublicKey(digest);
        return c.newBytes(pk.toRawBytes(false));
      } catch (e) {
        if (e instanceof ValError) throw e;
        throw cryptoErr(`secp256k1 recovery failed: ${(e as Error).message}`);
      }
    }),
  ],
  [
    "3",
    hf("verify_sig_ecdsa_secp256r1", 3, (c, k, d, s) => {
      const pk = sized(c, k, 65, "secp256r1 public key");
      const digest = sized(c, d, 32, "message digest");
      const sig = sized(c, s, 64, "signature");
      c.charge(3_000_000);
      let ok = false;
      try {
        ok = p256.verify(sig, digest, pk, { lowS: true, prehash: false } as Any);
      } catch {
        ok = false;
      }
      if (!ok) throw cryptoErr("failed secp256r1 verification");
      return VOID;
    }, 21),
  ],
  [
    "4",
    hf("bls12_381_check_g1_is_in_subgroup", 1, (c, p) => {
      c.charge(1_000_000);
      return boolVal(g1(c, p).isTorsionFree());
    }, 22),
  ],
  [
    "5",
    hf("bls12_381_g1_add", 2, (c, a, b) => {
      c.charge(100_000);
      return c.newBytes(g1(c, a).add(g1(c, b)).toBytes(false));
    }, 22),
  ],
  [
    "6",
    hf("bls12_381_g1_mul", 2, (c, p, s) => {
      c.charge(2_000_000);
      return c.newBytes(mulPoint(g1(c, p), fr(c, s)).toBytes(false));
    }, 22),
  ],
  [
    "7",
    hf("bls12_381_g1_msm", 2, (c, vp, vs) => {
      const ps = c.vec(vp);
      const ss = c.vec(vs);
      if (ps.length !== ss.length || ps.length === 0) throw cryptoErr("msm length mismatch");
      c.charge(2_000_000 * ps.length);
      let acc = G1.ZERO;
      for (let i = 0; i < ps.length; i++) {
        acc = acc.add(mulPoint(g1(c, c.rel(ps[i])), fr(c, c.rel(ss[i]))));
      }
      return c.newBytes(acc.toBytes(false));
    }, 22),
  ],
  [
    "8",
    hf("bls12_381_map_fp_to_g1", 1, (c, f) => {
      c.charge(1_500_000);
      const p = (bls12_381.G1 as Any).mapToCurve([fp(sized(c, f, 48, "field element"))]);
      return c.newBytes(p.toBytes(false));
    }, 22),
  ],
  [
    "9",
    hf("bls12_381_hash_to_g1", 2, (c, m, d) => {
      c.charge(3_000_000);
      const p = (bls12_381.G1 as Any).hashToCurve(c.bytes(m), { DST: dst(c, d) });
      return c.newBytes(p.toBytes(false));
    }, 22),
  ],
  [
    "a",
    hf("bls12_381_check_g2_is_in_subgroup", 1, (c, p) => {
      c.charge(2_000_000);
      return boolVal(g2(c, p).isTorsionFree());
    }, 22),
  ],
  [
    "b",
    hf("bls12_381_g2_add", 2, (c, a, b) => {
      c.charge(300_000);
      return c.newBytes(g2(c, a).add(g2(c, b)).toBytes(false));
    }, 22),
  ],
  [
    "c",
    hf("bls12_381_g2_mul", 2, (c, p, s) => {
      c.charge(5_000_000);
      return c.newBytes(mulPoint(g2(c, p), fr(c, s)).toBytes(false));
    }, 22),
  ],
  [
    "d",
    hf("bls12_381_g2_msm", 2, (c, vp, vs) => {
      const ps = c.vec(vp);
      const ss = c.vec(vs);
      if (ps.length !== ss.length || ps.length === 0) throw cryptoErr("msm length mismatch");
      c.charge(5_000_000 * ps.length);
      let acc = G2.ZERO;
      for (let i = 0; i < ps.length; i++) {
        acc = acc.add(mulPoint(g2(c, c.rel(ps[i])), fr(c, c.rel(ss[i]))));
      }
      return c.newBytes(acc.toBytes(false));
    }, 22),
  ],
  [
    "e",
    hf("bls12_381_map_fp2_to_g2", 1, (c, f) => {
      c.charge(3_000_000);
      const b = sized(c, f, 96, "Fp2 element");
      const p = (bls12_381.G2 as Any).mapToCurve([fp(b.subarray(48)), fp(b.subarray(0, 48))]);
      return c.newBytes(p.toBytes(false));
    }, 22),
  ],
  [
    "f",
    hf("bls12_381_hash_to_g2", 2, (c, m, d) => {
      c.charge(7_000_000);
      const p = (bls12_381.G2 as Any).hashToCurve(c.bytes(m), { DST: dst(c, d) });
      return c.newBytes(p.toBytes(false));
    }, 22),
  ],
  [
    "g",
    hf("bls12_381_multi_pairing_check", 2, (c, v1, v2) => {
      const a = c.vec(v1);
      const b = c.vec(v2);
      if (a.length !== b.length || a.length === 0) throw cryptoErr("pairing length mismatch");
      c.charge(10_000_000 * a.length);
      const pairs = a.map((p, i) => ({ g1: g1(c, c.rel(p)), g2: g2(c, c.rel(b[i])) }));
      const res = (bls12_381 as Any).pairingBatch(pairs);
      return boolVal(bls12_381.fields.Fp12.eql(res, bls12_381.fields.Fp12.ONE));
    }, 22),
  ],
  ["h", hf("bls12_381_fr_add", 2, (c, a, b) => retU256(c, Fr.add(fr(c, a), fr(c, b))), 22)],
  ["i", hf("bls12_381_fr_sub", 2, (c, a, b) => retU256(c, Fr.sub(fr(c, a), fr(c, b))), 22)],
  ["j", hf("bls12_381_fr_mul", 2, (c, a, b) => retU256(c, Fr.mul(fr(c, a), fr(c, b))), 22)],
  [
    "k",
    hf("bls12_381_fr_pow", 2, (c, a, e) => {
      const exp = c.store.numOf(c.abs(e), Tag.U64Object);
      return retU256(c, Fr.pow(fr(c, a), exp));
    }, 22),
  ],
  [
    "l",
    hf("bls12_381_fr_inv", 1, (c, a) => {
      const x = fr(c, a);
      if (x === 0n) throw valErr("Crypto", "InvalidInput", "inverse of zero");
      return retU256(c, Fr.inv(x));
    }, 22),
  ],
];
