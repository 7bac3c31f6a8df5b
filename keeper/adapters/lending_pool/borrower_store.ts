/**
 * KEEPER_STATE_DIR: one pool's borrower index (owners, open auctions, event cursor) saved to
 * `<dir>/<network>/<pool>.json`, so a restarted keeper still knows borrowers whose last pool event
 * is older than the RPC's retention window.
 *
 * The file is a hint, never a source of truth: it holds no balances, and every owner it lists has
 * its positions re-read from the chain. So anything doubtful about it (unparseable, another
 * version, another pool or network, a malformed address) means "ignore it and rescan", with a
 * warning, never a crash. The network is part of the path (a readable slug and a hash of the
 * passphrase), and is checked again inside the file: a testnet file never seeds a mainnet keeper.
 *
 * Writes are atomic: a temporary file in the same directory, fsync'd, then renamed over the old
 * one (a crash leaves the old file or the new one, never half of one). Hand-written with Deno's
 * file API rather than npm's write-file-atomic, whose signal-exit hooks would sit beside the
 * keeper's own SIGTERM handling.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { StrKey } from "@stellar/stellar-sdk";
import type { AuctionInfo, IndexSnapshot } from "./discovery.ts";

/** The file format's version; a file with another one is ignored (rescan). */
export const STORE_VERSION = 1;

/** What {@link BorrowerStore.load} found. */
export type LoadResult =
  /** No file yet: a normal cold start. */
  | { kind: "missing"; path: string }
  /** A file that cannot be used (`reason` says why): ignored, the index rescans. */
  | { kind: "invalid"; path: string; reason: string }
  | { kind: "loaded"; path: string; snapshot: IndexSnapshot; savedAt: string | null };

/** The JSON written to disk. */
interface StoreFile extends IndexSnapshot {
  version: number;
  network: string;
  pool: string;
  savedAt: string;
}

/**
 * The directory name of a network: a readable slug of its passphrase plus the first 8 bytes of
 * its SHA-256 (passphrases that slug alike still get different directories).
 */
export function networkDirName(passphrase: string): string {
  const slug = passphrase.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")
    .slice(0, 48) || "network";
  const digest = createHash("sha256").update(passphrase).digest("hex").slice(0, 16);
  return `${slug}-${digest}`;
}

/** One pool's state file under KEEPER_STATE_DIR. */
export class BorrowerStore {
  /** `<dir>/<network>/<pool>.json`. */
  readonly path: string;
  readonly #dir: string;
  readonly #network: string;
  readonly #pool: string;

  constructor(stateDir: string, networkPassphrase: string, pool: string) {
    if (!StrKey.isValidContract(pool)) throw new TypeError(`not a contract id: ${pool}`);
    this.#dir = `${stateDir.replace(/\/+$/, "") || "/"}/${networkDirName(networkPassphrase)}`;
    this.#network = networkPassphrase;
    this.#pool = pool;
    this.path = `${this.#dir}/${pool}.json`;
  }

  /** Reads and checks the file; never throws (an unreadable file is `invalid`). */
  async load(): Promise<LoadResult> {
    const path = this.path;
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return { kind: "missing", path };
      return { kind: "invalid", path, reason: `unreadable: ${(err as Error).message}` };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { kind: "invalid", path, reason: "not valid JSON" };
    }
    const checked = this.#check(raw);
    if (typeof checked === "string") return { kind: "invalid", path, reason: checked };
    return { kind: "loaded", path, snapshot: checked.snapshot, savedAt: checked.savedAt };
  }

  /**
   * Writes the snapshot atomically (temporary file in the same directory, fsync, rename),
   * creating the directories. Throws on any I/O error (the caller warns and carries on).
   */
  async save(s: IndexSnapshot, now = new Date()): Promise<void> {
    const file: StoreFile = {
      version: STORE_VERSION,
      network: this.#network,
      pool: this.#pool,
      savedAt: now.toISOString(),
      cursor: s.cursor,
      nextStart: s.nextStart,
      owners: [...s.owners].sort(),
      auctions: s.auctions,
    };
    const bytes = new TextEncoder().encode(JSON.stringify(file) + "\n");
    await Deno.mkdir(this.#dir, { recursive: true });
    const tmp = `${this.path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      const f = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
      try {
        for (let off = 0; off < bytes.length;) off += await f.write(bytes.subarray(off));
        await f.sync();
      } finally {
        f.close();
      }
      await Deno.rename(tmp, this.path);
    } catch (err) {
      await Deno.remove(tmp).catch(() => {});
      throw err;
    }
    // The rename is durable once the directory is: best effort (not every platform allows it).
    try {
      const d = await Deno.open(this.#dir, { read: true });
      try {
        await d.sync();
      } finally {
        d.close();
      }
    } catch { /* the file itself is complete either way */ }
  }

  /** The snapshot of a parsed file, or why it cannot be used. */
  #check(raw: unknown): { snapshot: IndexSnapshot; savedAt: string | null } | string {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "not an object";
    const f = raw as Partial<Record<keyof StoreFile, unknown>>;
    if (f.version !== STORE_VERSION) {
      return `version ${JSON.stringify(f.version)}, expected ${STORE_VERSION}`;
    }
    if (f.network !== this.#network) return `for another network (${JSON.stringify(f.network)})`;
    if (f.pool !== this.#pool) return `for another pool (${JSON.stringify(f.pool)})`;
    if (!Array.isArray(f.owners) || !f.owners.every(isAddress)) return "malformed owners";
    if (
      f.cursor !== null && (typeof f.cursor !== "string" || !/^\d{1,19}-\d{1,10}$/.test(f.cursor))
    ) {
      return "malformed cursor";
    }
    if (f.nextStart !== null && !(Number.isSafeInteger(f.nextStart) && Number(f.nextStart) >= 0)) {
      return "malformed nextStart";
    }
    if (typeof f.auctions !== "object" || f.auctions === null || Array.isArray(f.auctions)) {
      return "malformed auctions";
    }
    const auctions: Record<string, AuctionInfo> = {};
    for (const [user, a] of Object.entries(f.auctions)) {
      const info = a as Partial<AuctionInfo> | null;
      if (!isAddress(user) || !info || !isIntOrNull(info.block) || !isIntOrNull(info.percent)) {
        return "malformed auctions";
      }
      auctions[user] = { block: info.block, percent: info.percent };
    }
    return {
      snapshot: {
        owners: f.owners as string[],
        auctions,
        cursor: f.cursor as string | null,
        nextStart: f.nextStart as number | null,
      },
      savedAt: typeof f.savedAt === "string" ? f.savedAt : null,
    };
  }
}

function isAddress(a: unknown): a is string {
  return typeof a === "string" && (StrKey.isValidEd25519PublicKey(a) || StrKey.isValidContract(a));
}

function isIntOrNull(v: unknown): v is number | null {
  return v === null || (typeof v === "number" && Number.isSafeInteger(v) && v >= 0);
}
