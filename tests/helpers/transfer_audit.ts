/**
 * The issue-12 money audit, read from the chain as any observer could: the USDC SAC's `transfer`
 * events (`getEvents` over JSON-RPC), grouped by transaction. In every transaction that takes
 * USDC out of the vault — other than a depositor's own withdrawal (the vault's `withdraw` event
 * in the same transaction) — at least as much must come back to the vault in that transaction.
 *
 * @module
 */
import { rpc, scValToNative, xdr } from "@stellar/stellar-sdk";

/** USDC movements of one transaction, as seen from the vault. */
export interface VaultTx {
  txHash: string;
  ledger: number;
  /** USDC the vault sent (sum of transfers from the vault). */
  out: bigint;
  /** USDC the vault received (sum of transfers to the vault). */
  in: bigint;
  /** The vault emitted `withdraw` in this transaction. */
  withdrawal: boolean;
  /** USDC the vault's `withdraw` events of this transaction paid out (their `amount`). */
  withdrawn: bigint;
  /** The vault emitted `flash` in this transaction. */
  flash: boolean;
}

/** What {@link auditVaultTransfers} found. */
export interface AuditReport {
  /** Transactions that moved the vault's USDC, oldest first. */
  txs: VaultTx[];
  /**
   * Transactions that put back less than they took beyond what their `withdraw` events paid
   * (a withdrawal excuses only its own amount, not another outflow in the same transaction).
   */
  violations: VaultTx[];
  /** Transactions taking USDC out other than withdrawals (flashes and anything else). */
  outflows: number;
}

/** All events of `contractIds` since `startLedger`, decoded (topics and value as native). */
async function allEvents(server: rpc.Server, contractIds: string[], startLedger: number) {
  const out: {
    ledger: number;
    txHash: string;
    contract: string;
    topics: unknown[];
    value: unknown;
  }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const filters = [{ type: "contract" as const, contractIds }];
    const r = await server._getEvents(
      cursor ? { filters, cursor, limit: 1000 } : { filters, startLedger, limit: 1000 },
    );
    for (const e of r.events ?? []) {
      out.push({
        ledger: e.ledger,
        txHash: e.txHash ?? "",
        contract: e.contractId ?? "",
        topics: (e.topic ?? []).map((t) => scValToNative(xdr.ScVal.fromXDR(t, "base64"))),
        value: scValToNative(xdr.ScVal.fromXDR(e.value ?? "", "base64")),
      });
    }
    if (!r.events?.length || r.cursor === cursor) break;
    cursor = r.cursor;
  }
  return out;
}

/** One decoded event, as {@link auditEvents} reads it. */
export interface AuditEvent {
  ledger: number;
  txHash: string;
  contract: string;
  topics: unknown[];
  value: unknown;
}

/** The audit over already-decoded events of the USDC SAC and the vault (pure, for tests). */
export function auditEvents(evs: AuditEvent[], vault: string): AuditReport {
  const byTx = new Map<string, VaultTx>();
  const tx = (hash: string, ledger: number) => {
    let t = byTx.get(hash);
    if (!t) {
      t = { txHash: hash, ledger, out: 0n, in: 0n, withdrawal: false, withdrawn: 0n, flash: false };
      byTx.set(hash, t);
    }
    return t;
  };
  for (const e of evs) {
    if (e.contract === vault) {
      if (e.topics[0] === "withdraw") {
        const t = tx(e.txHash, e.ledger);
        t.withdrawal = true;
        t.withdrawn += BigInt((e.value as bigint[])[1]); // [shares, amount]
      }
      if (e.topics[0] === "flash") tx(e.txHash, e.ledger).flash = true;
      continue;
    }
    if (e.topics[0] !== "transfer") continue;
    const [, from, to] = e.topics as string[];
    // Protocol 23 may carry a map {amount, to_muxed_id}; older ones an i128.
    const v = e.value as bigint | { amount: bigint };
    const amount = typeof v === "bigint" ? v : BigInt(v.amount);
    if (from === vault) tx(e.txHash, e.ledger).out += amount;
    if (to === vault) tx(e.txHash, e.ledger).in += amount;
  }
  const txs = [...byTx.values()].filter((t) => t.out > 0n || t.in > 0n)
    .sort((a, b) => a.ledger - b.ledger);
  const outs = txs.filter((t) => t.out > t.withdrawn);
  return { txs, outflows: outs.length, violations: outs.filter((t) => t.in < t.out - t.withdrawn) };
}

/** Audits every transaction that moved the vault's USDC since `startLedger`. */
export async function auditVaultTransfers(
  rpcUrl: string,
  usdc: string,
  vault: string,
  startLedger = 1,
): Promise<AuditReport> {
  const server = new rpc.Server(rpcUrl, { allowHttp: true });
  return auditEvents(await allEvents(server, [usdc, vault], startLedger), vault);
}
