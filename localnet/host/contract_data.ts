/**
 * Contract storage for a frame: persistent/temporary contract data (one ledger entry per key,
 * footprint-checked, TTL extension requests) and instance storage (a map inside the instance
 * entry, written back when the frame succeeds).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { Invocation } from "./host.ts";
import type { Frame } from "./frame.ts";
import { addressScVal } from "./codec.ts";
import { compareScVal, contractDataKey, scvToken } from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export function dataGet(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  durability: 0 | 1,
): xdr.ScVal | undefined {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const e = h.read(
    lk,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
  return e ? (e.data as Any).contractData.val : undefined;
}

export function dataPut(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  val: xdr.ScVal,
  durability: 0 | 1,
): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const entry = new xdr.LedgerEntry({
    lastModifiedLedgerSeq: h.ledgerSeq,
    data: xdr.LedgerEntryData.contractData(
      new xdr.ContractDataEntry({
        ext: xdr.ExtensionPoint.v0(),
        contract: frame.callee.scAddress,
        key,
        durability: durability === 1
          ? xdr.ContractDataDurability.persistent
          : xdr.ContractDataDurability.temporary,
        val,
      }),
    ),
    ext: xdr.LedgerEntryExt.v0(),
  });
  h.write(
    lk,
    entry,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
}

export function dataDel(h: Invocation, frame: Frame, key: xdr.ScVal, durability: 0 | 1): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  h.write(
    lk,
    null,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
}

export function dataExtend(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  durability: 0 | 1,
  liveUntil: number,
): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const e = h.read(
    lk,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
  if (!e) {
    throw h.err(
      "Storage",
      "MissingValue",
      "trying to extend TTL of a missing contract storage key",
      [key],
    );
  }
  if (liveUntil > h.maxLiveUntil) {
    throw h.err("Storage", "InvalidAction", "trying to extend past max live_until ledger", [
      xdr.ScVal.scvU32(liveUntil),
      xdr.ScVal.scvU32(h.maxLiveUntil),
    ]);
  }
  h.requestLiveUntil(lk, liveUntil);
}

function checkThreshold(h: Invocation, threshold: number, extendTo: number): void {
  if (threshold > extendTo) {
    throw h.err("Storage", "InvalidInput", "threshold must be <= extend_to", [
      xdr.ScVal.scvU32(threshold),
      xdr.ScVal.scvU32(extendTo),
    ]);
  }
}

/**
 * Extends one contract data/code entry's TTL as the real host's `extend_ttl` does: an error when
 * `threshold > extendTo` (`Storage, InvalidInput`) or when a temporary entry would pass the
 * network's maximum TTL (`Storage, InvalidAction`; persistent entries, code and instances are
 * clamped to it); otherwise the entry is extended to `ledgerSeq + extendTo` only if its TTL now
 * (live-until − ledgerSeq) is at most `threshold`, and never shortened. Only a real extension is
 * requested from the ledger layer, so only it is charged rent. The caller has checked the entry
 * exists (and its footprint).
 */
export function extendEntryTtl(
  h: Invocation,
  key: string,
  temporary: boolean,
  threshold: number,
  extendTo: number,
): void {
  checkThreshold(h, threshold, extendTo);
  const seq = h.ledgerSeq;
  const maxTtl = h.maxLiveUntil - seq;
  if (temporary && extendTo > maxTtl) {
    throw h.err(
      "Storage",
      "InvalidAction",
      "trying to extend temporary entry past max TTL allowed by network",
      [xdr.ScVal.scvU32(extendTo), xdr.ScVal.scvU32(maxTtl)],
    );
  }
  const old = h.currentLiveUntil(key, temporary);
  const next = Math.min(seq + extendTo, h.maxLiveUntil);
  if (old - seq <= threshold && next > old) h.requestLiveUntil(key, next);
}

/** `extend_ttl` of a contract data entry of the frame's contract (see {@link extendEntryTtl}). */
export function dataExtendTtl(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  durability: 0 | 1,
  threshold: number,
  extendTo: number,
): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const e = h.read(
    lk,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
  if (!e) {
    throw h.err(
      "Storage",
      "MissingValue",
      "trying to extend TTL of a missing contract storage key",
      [key],
    );
  }
  extendEntryTtl(h, lk, durability === 0, threshold, extendTo);
}

/**
 * `extend_ttl` of a contract's instance and/or code entries, each judged against the threshold
 * on its own, as the real host does.
 */
export function calleeExtendTtl(
  h: Invocation,
  callee: { instanceKey: string; codeKey?: string },
  threshold: number,
  extendTo: number,
  instance: boolean,
  code: boolean,
): void {
  // threshold > extend_to is an error even when there is no code entry (a SAC) to extend.
  checkThreshold(h, threshold, extendTo);
  if (instance) extendEntryTtl(h, callee.instanceKey, false, threshold, extendTo);
  if (code && callee.codeKey) extendEntryTtl(h, callee.codeKey, false, threshold, extendTo);
}

export function instanceMap(_h: Invocation, frame: Frame): Map<string, xdr.ScMapEntry> {
  if (!frame.storage) {
    frame.storage = new Map();
    for (const e of frame.callee.instance.storage ?? []) frame.storage.set(scvToken(e.key), e);
  }
  return frame.storage;
}

export function instanceGet(h: Invocation, frame: Frame, key: xdr.ScVal): xdr.ScVal | undefined {
  return instanceMap(h, frame).get(scvToken(key))?.val;
}

export function instanceSet(h: Invocation, frame: Frame, key: xdr.ScVal, val: xdr.ScVal): void {
  instanceMap(h, frame).set(scvToken(key), new xdr.ScMapEntry({ key, val }));
  frame.dirty = true;
}

export function instanceDel(h: Invocation, frame: Frame, key: xdr.ScVal): void {
  if (instanceMap(h, frame).delete(scvToken(key))) frame.dirty = true;
}

/** Writes a frame's instance storage back to its instance entry (one ledger entry). */
export function persistInstance(h: Invocation, frame: Frame): void {
  if (!frame.newExecutable && (!frame.dirty || !frame.storage)) return;
  const entries = frame.storage
    ? [...frame.storage.values()].sort((a, b) => compareScVal(a.key, b.key))
    : frame.callee.instance.storage;
  const instance = new xdr.ScContractInstance({
    executable: frame.newExecutable ?? frame.callee.instance.executable,
    storage: entries,
  });
  h.write(
    frame.callee.instanceKey,
    instanceEntry(frame.callee.scAddress, instance, h.ledgerSeq),
    () => ["trying to access contract instance key outside of the footprint", [
      addressScVal(frame.contract),
    ]],
  );
}

/** The instance LedgerEntry of a contract. */
export function instanceEntry(
  sca: xdr.ScAddress,
  instance: xdr.ScContractInstance,
  seq: number,
): xdr.LedgerEntry {
  return new xdr.LedgerEntry({
    lastModifiedLedgerSeq: seq,
    data: xdr.LedgerEntryData.contractData(
      new xdr.ContractDataEntry({
        ext: xdr.ExtensionPoint.v0(),
        contract: sca,
        key: xdr.ScVal.scvLedgerKeyContractInstance(),
        durability: xdr.ContractDataDurability.persistent,
        val: xdr.ScVal.scvContractInstance(instance),
      }),
    ),
    ext: xdr.LedgerEntryExt.v0(),
  });
}

/** A contract code LedgerEntry. */
export function codeEntry(hash: Uint8Array, code: Uint8Array, seq: number): xdr.LedgerEntry {
  return new xdr.LedgerEntry({
    lastModifiedLedgerSeq: seq,
    data: xdr.LedgerEntryData.contractCode(
      new xdr.ContractCodeEntry({ ext: xdr.ContractCodeEntryExt.v0(), hash, code }),
    ),
    ext: xdr.LedgerEntryExt.v0(),
  });
}
