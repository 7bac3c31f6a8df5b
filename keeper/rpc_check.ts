/**
 * Start-up checks of the RPC, before registration: is it reachable, does it serve the network of
 * NETWORK_PASSPHRASE, which ledger is it at, and does the keeper's own account exist there. Each
 * failure gets a message that names what failed, so an operator fixes the right thing.
 *
 * @module
 */
import { Networks } from "@stellar/stellar-sdk";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { describeError } from "@vigil/soroban/errors";
import { redactUrl } from "@vigil/util/url_redact";
import type { LogWriter } from "./log/logger.ts";

/** The RPC serves another network than NETWORK_PASSPHRASE: every signature would be refused. */
export class NetworkMismatchError extends Error {
  override name = "NetworkMismatchError";
}

/** What the checks found. */
export interface RpcCheck {
  /** The RPC answered getNetwork. */
  reachable: boolean;
  /** Latest ledger, when reachable. */
  latestLedger: number | null;
  /** The keeper's account exists; null when that could not be asked. */
  accountExists: boolean | null;
}

/** A name for people of the network a passphrase belongs to. */
export function networkName(passphrase: string): string {
  switch (passphrase) {
    case Networks.TESTNET:
      return "testnet";
    case Networks.PUBLIC:
      return "mainnet";
    case Networks.FUTURENET:
      return "futurenet";
    default:
      return `the network "${passphrase}"`;
  }
}

/**
 * Where an operator gets test lumens for `account` on this network, if anywhere. The account is
 * named apart from the URL: every URL in a log line loses its query values (redaction).
 */
export function fundingHint(passphrase: string, account: string, friendbotUrl?: string): string {
  const bot = friendbotUrl ??
    (passphrase === Networks.TESTNET
      ? "https://friendbot.stellar.org"
      : passphrase === Networks.FUTURENET
      ? "https://friendbot-futurenet.stellar.org"
      : undefined);
  if (!bot) return "send it at least a few XLM from a funded account";
  const where = passphrase === Networks.TESTNET
    ? "testnet: "
    : passphrase === Networks.FUTURENET
    ? "futurenet: "
    : "";
  return `${where}friendbot ${bot}, addr=${account}`;
}

/**
 * Checks the RPC. An unreachable RPC and a missing account are logged (error and warn) and
 * returned: the keeper keeps running and retries registration, so it recovers once the RPC is
 * back or the account funded. A network mismatch throws {@link NetworkMismatchError}: it never
 * fixes itself.
 */
export async function checkRpc(
  chain: ChainRpc,
  opts: { passphrase: string; account: string; log: LogWriter },
): Promise<RpcCheck> {
  const { passphrase, account, log } = opts;
  const url = redactUrl(chain.url);
  let network: { passphrase: string; friendbotUrl?: string };
  try {
    network = await chain.server.getNetwork();
  } catch (err) {
    log.error(`RPC ${url} is unreachable: ${describeError(err)}`, {
      plain: `the RPC ${url} is unreachable (${
        describeError(err)
      }): check SOROBAN_RPC; the keeper keeps retrying`,
      rpc: url,
      err,
    });
    return { reachable: false, latestLedger: null, accountExists: null };
  }
  if (network.passphrase !== passphrase) {
    throw new NetworkMismatchError(
      `network passphrase mismatch: NETWORK_PASSPHRASE is "${passphrase}" but the RPC ${url} serves "${network.passphrase}": set one of them to the other`,
    );
  }
  let latestLedger: number | null = null;
  try {
    latestLedger = (await chain.server.getLatestLedger()).sequence;
  } catch (err) {
    log.warn(`RPC ${url} did not say its latest ledger: ${describeError(err)}`, { err });
  }
  log.info(`RPC ok: ${networkName(passphrase)}, latest ledger ${latestLedger ?? "unknown"}`, {
    rpc: url,
    latest_ledger: latestLedger,
  });
  let accountExists: boolean | null = null;
  try {
    await chain.server.getAccount(account);
    accountExists = true;
  } catch (err) {
    if (/^Account not found/.test((err as Error)?.message ?? "")) {
      accountExists = false;
      log.warn(
        `account ${account} not found on ${networkName(passphrase)}: fund it (${
          fundingHint(passphrase, account, network.friendbotUrl)
        }); until then the keeper cannot register or send anything`,
        { account },
      );
    } else {
      log.warn(`cannot read the keeper's account ${account}: ${describeError(err)}`, { err });
    }
  }
  return { reachable: true, latestLedger, accountExists };
}
