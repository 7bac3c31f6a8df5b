/**
 * Small byte, hash and ledger-key helpers shared by the node's modules.
 *
 * Ledger keys travel as canonical base64 `LedgerKey` XDR strings (the same form the host
 * boundary uses), so they can be Map keys and compared by string equality.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { StrKey, xdr } from "@stellar/stellar-sdk";

/** sha256 of some bytes (native implementation; the SDK's is pure JS). */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Bytes of a hex string. */
export function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, "hex"));
}

/** Base64 of bytes. */
export function toB64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Bytes of a base64 string. */
export function fromB64(b64: string): Uint8Array {
  return new Uint8Array(Buffer.from(b64, "base64"));
}

/** The network id: sha256(passphrase). */
export function networkIdOf(passphrase: string): Uint8Array {
  return sha256(new TextEncoder().encode(passphrase));
}

/** XDR PublicKey of a G… address. */
export function publicKeyXdr(g: string): xdr.PublicKey {
  return xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(g));
}

/** G… address of an XDR PublicKey (AccountID). */
export function accountIdToG(pk: xdr.PublicKey): string {
  return StrKey.encodeEd25519PublicKey(pk.ed25519.value);
}

/** G… address of a MuxedAccount (the underlying ed25519 account; the mux id is dropped). */
export function muxedToG(m: xdr.MuxedAccount): string {
  if (m.type === "keyTypeEd25519") return StrKey.encodeEd25519PublicKey(m.ed25519.value);
  return StrKey.encodeEd25519PublicKey(m.med25519.ed25519.value);
}

const accountKeyCache = new Map<string, string>();

/** base64 LedgerKey of an account (cached: accounts are looked up on every tx). */
export function accountKey(g: string): string {
  let k = accountKeyCache.get(g);
  if (k === undefined) {
    k = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: publicKeyXdr(g) })).toXdr(
      "base64",
    );
    if (accountKeyCache.size > 100_000) accountKeyCache.clear();
    accountKeyCache.set(g, k);
  }
  return k;
}

/** base64 LedgerKey of a trustline of `g` for an issued asset. */
export function trustlineKey(g: string, asset: xdr.TrustLineAsset): string {
  return xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId: publicKeyXdr(g), asset }))
    .toXdr("base64");
}

/** A copy of `entry` stamped with `lastModifiedLedgerSeq`. */
export function stamp(entry: xdr.LedgerEntry, seq: number): xdr.LedgerEntry {
  if (entry.lastModifiedLedgerSeq === seq) return entry;
  return new xdr.LedgerEntry({ lastModifiedLedgerSeq: seq, data: entry.data, ext: entry.ext });
}

/** Formats unix seconds as stellar-rpc does (`2006-01-02T15:04:05Z`). */
export function isoSeconds(unixSeconds: bigint | number): string {
  return new Date(Number(unixSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
