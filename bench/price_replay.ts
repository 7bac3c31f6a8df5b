/**
 * The race bench's price replay (issue 26): the oracle's prices in force when a transaction
 * executed, from the oracle's own `update` events in application order (see
 * `bench/race_bench.ts`'s header for the definition), over any stellar-rpc.
 *
 * @module
 */
import { type rpc, scValToNative } from "@stellar/stellar-sdk";

/** The two RPC methods the replay reads. */
export type ReplayServer = Pick<rpc.Server, "getEvents" | "getTransactions">;

/** The replayed prices (token contract → oracle price). */
export interface PriceReplay {
  /** At the close of `ledger`. */
  atClose(ledger: number): Map<string, bigint>;
  /** In force when the transaction of event `e` executed. */
  beforeEvent(e: Ev): Promise<Map<string, bigint>>;
}

/** One contract event as the report reads it. */
export interface Ev {
  id: string;
  name: string;
  ledger: number;
  txHash: string;
  topics: unknown[];
  value: unknown;
}

/** Every event of `contractIds` from `startLedger` on, in id (application) order. */
export async function contractEvents(
  server: ReplayServer,
  contractIds: string[],
  startLedger: number,
): Promise<Ev[]> {
  const evs: Ev[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const filters = [{ type: "contract" as const, contractIds }];
    const r = cursor
      ? await server.getEvents({ filters, cursor, limit: 1000 })
      : await server.getEvents({ filters, startLedger, limit: 1000 });
    for (const e of r.events) {
      const topics = e.topic.map((t) => scValToNative(t));
      evs.push({
        id: e.id,
        name: String(topics[0]),
        ledger: e.ledger,
        txHash: e.txHash,
        topics,
        value: scValToNative(e.value),
      });
    }
    if (r.events.length === 0 || r.cursor === cursor) break;
    cursor = r.cursor;
  }
  return evs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The TOID transaction index (application order within the ledger) of an event id. */
export function txIndexOf(id: string): number {
  return Number((BigInt(id.split("-")[0]) >> 12n) & 0xfffffn);
}

/**
 * The oracle's prices replayed from its `update` events (see the module doc): at a ledger's
 * close, and in force when a given event's transaction executed.
 */
export async function priceReplay(
  server: ReplayServer,
  oracleId: string,
  seedAt: { ledger: number; prices: Map<string, bigint> },
): Promise<PriceReplay> {
  const updates = (await contractEvents(server, [oracleId], seedAt.ledger + 1))
    .filter((e) => e.name === "REFLECTOR" && e.topics[1] === "update")
    .map((e) => {
      const [asset, price] = e.value as [[string, string], bigint];
      return { ev: e, token: String(asset[1]), price: BigInt(price) };
    });
  const txsOf = new Map<number, Set<string>>();
  /** The hashes of the transactions of `ledger` (getTransactions). */
  const ledgerTxs = async (ledger: number): Promise<Set<string>> => {
    let set = txsOf.get(ledger);
    if (set) return set;
    set = new Set();
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const r = cursor
        ? await server.getTransactions({ pagination: { cursor, limit: 200 } })
        : await server.getTransactions({ startLedger: ledger, pagination: { limit: 200 } });
      let past = r.transactions.length === 0;
      for (const t of r.transactions) {
        if (t.ledger === ledger) set.add(t.txHash);
        else if (t.ledger > ledger) past = true;
      }
      if (past || r.cursor === cursor) break;
      cursor = r.cursor;
    }
    txsOf.set(ledger, set);
    return set;
  };
  const upTo = (keep: (u: (typeof updates)[number]) => boolean) => {
    const m = new Map(seedAt.prices);
    for (const u of updates) if (keep(u)) m.set(u.token, u.price);
    return m;
  };
  return {
    atClose: (ledger: number) => upTo((u) => u.ev.ledger <= ledger),
    async beforeEvent(e: Ev): Promise<Map<string, bigint>> {
      const txs = await ledgerTxs(e.ledger);
      const at = txIndexOf(e.id);
      const sameLedgerBefore = (u: (typeof updates)[number]) =>
        !txs.has(u.ev.txHash) || txIndexOf(u.ev.id) < at;
      return upTo((u) =>
        u.ev.ledger < e.ledger || (u.ev.ledger === e.ledger && sameLedgerBefore(u))
      );
    },
  };
}
