/**
 * Fast ed25519 verification through node:crypto (native; the SDK's pure-JS verify takes
 * about 1 ms, which would dominate transaction throughput).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { toHex } from "./util.ts";

const SPKI_PREFIX = Uint8Array.from([
  0x30,
  0x2a,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x03,
  0x21,
  0x00,
]);
const keyCache = new Map<string, KeyObject>();

function keyObject(pub: Uint8Array): KeyObject {
  const id = toHex(pub);
  let k = keyCache.get(id);
  if (!k) {
    const der = new Uint8Array(44);
    der.set(SPKI_PREFIX);
    der.set(pub, 12);
    k = createPublicKey({ key: Buffer.from(der), format: "der", type: "spki" });
    if (keyCache.size > 50_000) keyCache.clear();
    keyCache.set(id, k);
  }
  return k;
}

/** Whether `sig` is a valid ed25519 signature of `msg` by the 32-byte public key `pub`. */
export function verifyEd25519(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  if (pub.length !== 32 || sig.length !== 64) return false;
  try {
    return verify(null, msg, keyObject(pub), sig);
  } catch {
    return false;
  }
}
