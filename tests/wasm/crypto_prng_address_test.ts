/**
 * Host modules `c` (crypto), `p` (prng) and the conversion functions of `a` (address) through
 * the forwarder over JSON-RPC. Expected values come from published vectors or are computed
 * independently (node:crypto, @noble) from the inputs.
 */
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, sign as nodeSign } from "node:crypto";
import { Keypair, Operation, StrKey } from "@stellar/stellar-sdk";
import { submit } from "@vigil/testing/wasm/deploy_helpers";
import { secp256k1 } from "@noble/curves/secp256k1";
import { p256 } from "@noble/curves/nist";
import { bls12_381 } from "@noble/curves/bls12-381";
import {
  addr,
  bytes,
  forwarder,
  fromLe,
  le,
  native,
  num,
  str,
  u32,
  vec,
} from "@vigil/testing/wasm/fwd_fixture";

// deno-lint-ignore no-explicit-any
type Any = any;

const enc = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("crypto: hashes, ed25519, secp256k1 recovery, secp256r1", async () => {
  await using f = await forwarder();
  assert.equal(
    hex(native(await f.hf("c._", bytes(enc("abc"))))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  // keccak256("") — the Ethereum empty hash.
  assert.equal(
    hex(native(await f.hf("c.1", bytes(new Uint8Array())))),
    "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
  );
  const kp = Keypair.random();
  const msg = enc("signed message");
  const sig = kp.sign(msg as Any);
  assert.equal(
    (await f.hf("c.0", bytes(kp.rawPublicKey()), bytes(msg), bytes(sig))).type,
    "scvVoid",
  );
  assert.match(
    await f.hfErr("c.0", bytes(kp.rawPublicKey()), bytes(enc("other")), bytes(sig)),
    /Error\(Crypto, InvalidInput\)/,
  );
  // secp256k1: recover the signer's uncompressed key from (digest, r||s, recovery id).
  const sk = secp256k1.utils.randomPrivateKey();
  const digest = createHash("sha256").update("ecdsa").digest();
  const ksig = secp256k1.sign(digest, sk); // low-s
  const recovered = native(
    await f.hf("c.2", bytes(digest), bytes(ksig.toCompactRawBytes()), u32(ksig.recovery!)),
  );
  assert.equal(hex(recovered), hex(secp256k1.getPublicKey(sk, false)));
  const wrongId = native(
    await f.hf("c.2", bytes(digest), bytes(ksig.toCompactRawBytes()), u32(ksig.recovery! ^ 1)),
  );
  assert.notEqual(hex(wrongId), hex(secp256k1.getPublicKey(sk, false)));
  // secp256r1 verify with a key made by node:crypto (an independent implementation).
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const der = publicKey.export({ format: "der", type: "spki" }) as Uint8Array;
  const pub65 = der.subarray(der.length - 65);
  const rdigest = createHash("sha256").update("passkey").digest();
  let rsig: Uint8Array = nodeSign("sha256", rdigest, {
    key: privateKey,
    dsaEncoding: "ieee-p1363",
  });
  // Normalize to low-s as the host requires.
  const parsed = p256.Signature.fromCompact(rsig);
  rsig = parsed.hasHighS() ? parsed.normalizeS().toCompactRawBytes() : parsed.toCompactRawBytes();
  // node signs sha256(data) when given null algorithm on the digest: verify against it.
  const hashed = createHash("sha256").update(rdigest).digest();
  assert.equal((await f.hf("c.3", bytes(pub65), bytes(hashed), bytes(rsig))).type, "scvVoid");
  assert.match(
    await f.hfErr("c.3", bytes(pub65), bytes(rdigest), bytes(rsig)),
    /Crypto, InvalidInput/,
  );
});

Deno.test("crypto: BLS12-381 group, field and pairing operations", async () => {
  await using f = await forwarder();
  const G1 = (bls12_381.G1 as Any).Point ?? (bls12_381.G1 as Any).ProjectivePoint;
  const G2 = (bls12_381.G2 as Any).Point ?? (bls12_381.G2 as Any).ProjectivePoint;
  const r = bls12_381.fields.Fr.ORDER;
  const p1 = G1.BASE.multiply(5n);
  const p2 = G1.BASE.multiply(7n);
  const B = (p: Any) => bytes(p.toBytes(false));
  assert.equal(
    hex(native(await f.hf("c.5", B(p1), B(p2)))),
    hex(G1.BASE.multiply(12n).toBytes(false)),
  );
  assert.equal(
    hex(native(await f.hf("c.6", B(p1), num(3, "u256")))),
    hex(G1.BASE.multiply(15n).toBytes(false)),
  );
  assert.equal(
    hex(native(await f.hf("c.7", vec(B(p1), B(p2)), vec(num(2, "u256"), num(3, "u256"))))),
    hex(G1.BASE.multiply(31n).toBytes(false)),
  );
  assert.equal(native(await f.hf("c.4", B(p1))), true);
  assert.match(await f.hfErr("c.5", bytes(p1.toBytes(true)), B(p2)), /Crypto, InvalidInput/);
  const q1 = G2.BASE.multiply(4n);
  assert.equal(
    hex(native(await f.hf("c.b", B(q1), B(G2.BASE)))),
    hex(G2.BASE.multiply(5n).toBytes(false)),
  );
  assert.equal(
    hex(native(await f.hf("c.c", B(q1), num(2, "u256")))),
    hex(G2.BASE.multiply(8n).toBytes(false)),
  );
  assert.equal(
    hex(native(await f.hf("c.d", vec(B(q1)), vec(num(3, "u256"))))),
    hex(G2.BASE.multiply(12n).toBytes(false)),
  );
  assert.equal(native(await f.hf("c.a", B(q1))), true);
  // e(5·G1, 4·G2) · e(−20·G1, G2) = 1.
  const neg = G1.BASE.multiply(20n).negate();
  assert.equal(native(await f.hf("c.g", vec(B(p1), B(neg)), vec(B(q1), B(G2.BASE)))), true);
  assert.equal(native(await f.hf("c.g", vec(B(p1), B(neg)), vec(B(G2.BASE), B(G2.BASE)))), false);
  // hash/map to curve: the RFC 9380 suites, deterministic and on the curve.
  const dst = enc("QUUX-V01-CS02-with-BLS12381G1_XMD:SHA-256_SSWU_RO_");
  const h1 = native(await f.hf("c.9", bytes(enc("abc")), bytes(dst)));
  assert.equal(
    hex(h1),
    hex((bls12_381.G1 as Any).hashToCurve(enc("abc"), { DST: dst }).toBytes(false)),
  );
  assert.equal(native(await f.hf("c.4", bytes(h1))), true);
  const h2 = native(await f.hf("c.f", bytes(enc("abc")), bytes(dst)));
  assert.equal(h2.length, 192);
  const fp = new Uint8Array(48);
  fp[47] = 5;
  assert.equal(native(await f.hf("c.8", bytes(fp))).length, 96);
  assert.equal(native(await f.hf("c.e", bytes(new Uint8Array(96).fill(0, 0)))).length, 192);
  // Fr arithmetic mod r.
  assert.equal(native(await f.hf("c.h", num(r - 1n, "u256"), num(2, "u256"))), 1n);
  assert.equal(native(await f.hf("c.i", num(1, "u256"), num(2, "u256"))), r - 1n);
  assert.equal(native(await f.hf("c.j", num(r - 1n, "u256"), num(r - 1n, "u256"))), 1n);
  assert.equal(native(await f.hf("c.k", num(2, "u256"), num(10, "u64"))), 1024n);
  const inv = native(await f.hf("c.l", num(3, "u256")));
  assert.equal((inv * 3n) % r, 1n);
  assert.match(await f.hfErr("c.l", num(0, "u256")), /Crypto, InvalidInput/);
});

Deno.test("prng: deterministic per seed, ranges, shuffles", async () => {
  await using f = await forwarder();
  // Each simulation draws from a fresh random seed (the network seeds a transaction's PRNG from
  // the transaction set, which no simulation can know), so two draws differ.
  const a = native(await f.hf("p.0", u32(32)));
  const b = native(await f.hf("p.0", u32(32)));
  assert.equal(a.length, 32);
  assert.notDeepEqual([...a], [...b]);
  const x = fromLe(await f.hf("p.1", le(10n), le(20n)));
  assert.ok(x >= 10n && x <= 20n);
  assert.equal(fromLe(await f.hf("p.1", le(7n), le(7n))), 7n);
  assert.match(await f.hfErr("p.1", le(9n), le(8n)), /Error\(Value, InvalidInput\)/);
  const items = Array.from({ length: 20 }, (_, i) => u32(i));
  const shuffled = native(await f.hf("p.2", vec(...items)));
  assert.deepEqual([...shuffled].sort((p: number, q: number) => p - q), items.map((_, i) => i));
  assert.notDeepEqual(shuffled, items.map((_, i) => i));
  assert.match(await f.hfErr("p._", bytes(new Uint8Array(31))), /UnexpectedSize/);
  assert.equal((await f.hf("p._", bytes(new Uint8Array(32)))).type, "scvVoid");
  // Applied, the call draws too (from the node's per-operation seed).
  const applied = await submit(
    f.node,
    f.alice,
    Operation.invokeContractFunction({ contract: f.id, function: "p_0", args: [u32(16)] }),
  );
  assert.equal(native(applied.returnValue!).length, 16);
});

Deno.test("address: strkey conversions, muxed addresses, executables", async () => {
  await using f = await forwarder();
  const g = Keypair.random().publicKey();
  assert.equal(native(await f.hf("a.1", str(g))), g);
  assert.equal(native(await f.hf("a.1", bytes(enc(f.id)))), f.id);
  assert.match(await f.hfErr("a.1", str("SBAD")), /Error\(Value, InvalidInput\)/);
  assert.equal(native(await f.hf("a.2", addr(f.id))), f.id);
  // get_address_executable: Wasm hash for a Wasm contract, Account for an existing account,
  // void for an unknown one.
  const exe = native(await f.hf("a.6", addr(f.id)));
  assert.equal(exe[0], "Wasm");
  assert.equal(exe[1].length, 32);
  assert.deepEqual(native(await f.hf("a.6", addr(f.alice.publicKey()))), ["Account"]);
  assert.equal((await f.hf("a.6", addr(g))).type, "scvVoid");
  const m = StrKey.encodeMed25519PublicKey(
    Uint8Array.from([...Keypair.fromPublicKey(g).rawPublicKey(), 0, 0, 0, 0, 0, 0, 0, 42]) as Any,
  );
  assert.equal(native(await f.hf("a.4", addr(m))), g);
  assert.equal(native(await f.hf("a.5", addr(m))), 42n);
});
