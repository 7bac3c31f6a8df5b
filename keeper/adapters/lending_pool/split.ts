/**
 * Pooled keepers split the work (issue 26): every auction has one primary keeper among Vigil's
 * registered keepers, and the others are its backups in a fixed order. Every keeper computes the
 * same order from public data alone, so no message is exchanged:
 *
 *   rank key(k) = sha256(pool ‖ user ‖ u32be(auction start block) ‖ k)   (strkeys as UTF-8 bytes)
 *
 * sorted ascending (bytewise); the lowest is the primary, the next the first backup, and so on. The
 * primary sends at the auction's first profitable block; the backup of rank r not before
 * {@link BACKUP_DELAY_LEDGERS} × r ledgers after it. Creating an auction uses the same rule with
 * block {@link CREATION_BLOCK} (there is no start block yet), each backup counting its delay from
 * the ledger where it first saw the position liquidatable without an auction.
 *
 * Nothing in the contracts depends on it: it is the keepers' courtesy, and a keeper that ignores
 * it only wastes its own fees on lost races.
 *
 * @module
 */

/** Ledgers a backup waits per rank after the first profitable block (or first sighting). */
export const BACKUP_DELAY_LEDGERS = 2;

/** The block in the rank key when the auction does not exist yet (who creates it). */
export const CREATION_BLOCK = 0;

/** What an auction's order of keepers is derived from. */
export interface SplitKey {
  pool: string;
  user: string;
  /** The auction's start block, or {@link CREATION_BLOCK} for creating it. */
  auctionBlock: number;
}

/** A keeper's place in an auction's order. */
export interface Turn {
  /** 0 = primary, 1 = first backup, … */
  rank: number;
  /** The primary keeper's address. */
  primary: string;
  /** The first ledger this keeper may send in (`from` + rank × BACKUP_DELAY_LEDGERS). */
  readyAt: number;
}

const utf8 = new TextEncoder();

/** The rank key of `keeper` for `key`: sha256(pool ‖ user ‖ u32be(block) ‖ keeper). */
export async function rankKey(key: SplitKey, keeper: string): Promise<Uint8Array> {
  const pool = utf8.encode(key.pool);
  const user = utf8.encode(key.user);
  const who = utf8.encode(keeper);
  const bytes = new Uint8Array(pool.length + user.length + 4 + who.length);
  bytes.set(pool, 0);
  bytes.set(user, pool.length);
  new DataView(bytes.buffer).setUint32(pool.length + user.length, key.auctionBlock >>> 0);
  bytes.set(who, pool.length + user.length + 4);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** The keepers in their order for `key` (duplicates dropped): primary first. */
export async function rankKeepers(key: SplitKey, keepers: readonly string[]): Promise<string[]> {
  const unique = [...new Set(keepers)];
  const keyed = await Promise.all(unique.map(async (k) => ({ k, h: await rankKey(key, k) })));
  keyed.sort((a, b) => compareBytes(a.h, b.h) || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((x) => x.k);
}

/**
 * `me`'s turn for `key` among `keepers` (the registry's list), counting from ledger `from`. A
 * keeper missing from the list (not registered yet, or the list is a read old) comes after every
 * listed one; with an empty list it is the primary, as if alone.
 */
export async function turnOf(
  key: SplitKey,
  keepers: readonly string[],
  me: string,
  from: number,
): Promise<Turn> {
  const order = await rankKeepers(key, keepers);
  const found = order.indexOf(me);
  const rank = found >= 0 ? found : order.length;
  return { rank, primary: order[0] ?? me, readyAt: from + rank * BACKUP_DELAY_LEDGERS };
}

/**
 * The first ledger a creation backup of `rank` may create the auction in, counted from `since` (the
 * ledger it first saw the position liquidatable without one): {@link BACKUP_DELAY_LEDGERS} per
 * rank, or one poll interval (`pollLedgers`) per rank when that is longer — the primary only
 * notices the position at its next cycle.
 */
export function creationReadyAt(since: number, rank: number, pollLedgers: number): number {
  return since + rank * Math.max(BACKUP_DELAY_LEDGERS, pollLedgers);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}
