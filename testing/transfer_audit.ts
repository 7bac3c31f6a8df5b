/**
 * The issue-12 money audit, read from the chain as any observer could: the USDC SAC's `transfer`
 * events (`getEvents` over JSON-RPC), grouped by transaction. In every transaction that takes
 * USDC out of the vault — other than a depositor's own withdrawal (the vault's `withdraw` event
 * in the same transaction) — at least as much must come back to the vault in that transaction.
 *
 * And the depositors' side of it (the flash policy): in every `flash` transaction the keeper's
 * net movement in each watched asset (USDC and any lot assets passed in, from their SACs'
 * `transfer` events) is at most 0 — the keeper keeps nothing of a liquidation. Transaction fees
 * do not count: since protocol 23 (CAP-67) every transaction has `fee` events on the native SAC
 * (`["fee", payer]`, the charge, and the refund as a negative amount), which a watch on the XLM
 * SAC receives — failed transactions' included — and which are not movements between holders.
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
  /** The flash's keeper (topic of the vault's `flash` event). */
  keeper?: string;
  /** For a flash: the keeper's net gain per watched token contract (in − out, from transfers). */
  keeperNet: Record<string, bigint>;
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
  /** Flash transactions after which the keeper held more of some watched asset than before. */
  keeperGains: VaultTx[];
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
      // A failed transaction moved nothing (only its fee events are served).
      if (e.inSuccessfulContractCall === false) continue;
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

/**
 * The audit over already-decoded events of the vault and token SACs (pure, for tests). With
 * `usdc`, only that contract's transfers count as the vault's USDC (other tokens are watched for
 * the keeper's net); without it, every transfer event is taken as USDC.
 */
export function auditEvents(evs: AuditEvent[], vault: string, usdc?: string): AuditReport {
  const byTx = new Map<string, VaultTx>();
  /** Per transaction: token contract → address → net received. */
  const nets = new Map<string, Map<string, Map<string, bigint>>>();
  const tx = (hash: string, ledger: number) => {
    let t = byTx.get(hash);
    if (!t) {
      t = {
        txHash: hash,
        ledger,
        out: 0n,
        in: 0n,
        withdrawal: false,
        withdrawn: 0n,
        flash: false,
        keeperNet: {},
      };
      byTx.set(hash, t);
    }
    return t;
  };
  const move = (hash: string, token: string, who: string, delta: bigint) => {
    let byToken = nets.get(hash);
    if (!byToken) nets.set(hash, byToken = new Map());
    let byWho = byToken.get(token);
    if (!byWho) byToken.set(token, byWho = new Map());
    byWho.set(who, (byWho.get(who) ?? 0n) + delta);
  };
  for (const e of evs) {
    if (e.contract === vault) {
      if (e.topics[0] === "withdraw") {
        const t = tx(e.txHash, e.ledger);
        t.withdrawal = true;
        t.withdrawn += BigInt((e.value as bigint[])[1]); // [shares, amount]
      }
      if (e.topics[0] === "flash") {
        const t = tx(e.txHash, e.ledger);
        t.flash = true;
        t.keeper = e.topics[1] as string;
      }
      continue;
    }
    // `fee` (CAP-67), `mint`, `burn`, `approve`…: not transfers between holders.
    if (e.topics[0] !== "transfer") continue;
    const [, from, to] = e.topics as string[];
    // Protocol 23 may carry a map {amount, to_muxed_id}; older ones an i128.
    const v = e.value as bigint | { amount: bigint };
    const amount = typeof v === "bigint" ? v : BigInt(v.amount);
    move(e.txHash, e.contract, from, -amount);
    move(e.txHash, e.contract, to, amount);
    if (usdc !== undefined && e.contract !== usdc) continue;
    if (from === vault) tx(e.txHash, e.ledger).out += amount;
    if (to === vault) tx(e.txHash, e.ledger).in += amount;
  }
  for (const t of byTx.values()) {
    if (!t.flash || !t.keeper) continue;
    for (const [token, byWho] of nets.get(t.txHash) ?? []) {
      t.keeperNet[token] = byWho.get(t.keeper) ?? 0n;
    }
  }
  const all = [...byTx.values()].sort((a, b) => a.ledger - b.ledger);
  const txs = all.filter((t) => t.out > 0n || t.in > 0n);
  const outs = txs.filter((t) => t.out > t.withdrawn);
  return {
    txs,
    outflows: outs.length,
    violations: outs.filter((t) => t.in < t.out - t.withdrawn),
    keeperGains: all.filter((t) => t.flash && Object.values(t.keeperNet).some((n) => n > 0n)),
  };
}

/**
 * Audits every transaction that moved the vault's USDC since `startLedger`, and the keeper's net
 * in USDC and each of `assets` (token contracts, e.g. the lot assets) in every flash.
 */
export async function auditVaultTransfers(
  rpcUrl: string,
  usdc: string,
  vault: string,
  startLedger = 1,
  assets: string[] = [],
): Promise<AuditReport> {
  const server = new rpc.Server(rpcUrl, { allowHttp: true });
  const ids = [...new Set([usdc, vault, ...assets])];
  return auditEvents(await allEvents(server, ids, startLedger), vault, usdc);
}
