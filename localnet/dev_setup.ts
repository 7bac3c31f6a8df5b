/**
 * The base development deployment of the local node: the native XLM and USDC Stellar Asset
 * Contracts, a USDC issuer (the USDC SAC's admin) and funded dev accounts with USDC
 * trustlines and balances. Later issues add their contracts on top of what this returns.
 *
 * @module
 */
import { Asset, Keypair } from "@stellar/stellar-sdk";
import { xdr } from "@stellar/stellar-sdk";
import { INT64_MAX, loadAccount, TL_AUTHORIZED, withAccount } from "./accounts.ts";
import type { Localnet } from "./node.ts";
import { accountKey, publicKeyXdr, trustlineKey } from "./util.ts";

/** A dev account as written to `localnet.json`. */
export interface DevAccount {
  public: string;
  secret: string;
}

/** What the base deployment produced. */
export interface DevChain {
  /** Contract ids by name (`xlm`, `usdc`). */
  contracts: Record<string, string>;
  /** Accounts by name (`usdc_issuer`, `alice`, `bob`, `keeper1`, `keeper2`, …). */
  accounts: Record<string, DevAccount>;
}

/** Options of {@link setupDevChain}. */
export interface DevSetupOptions {
  /** Names of the funded dev accounts (default alice, bob, keeper1, keeper2). */
  accounts?: string[];
  /** XLM given to each account (default 10,000). */
  xlm?: bigint;
  /** USDC (whole units) given to each account (default 100,000). */
  usdc?: bigint;
}

/** Gives `holder` a USDC trustline (authorized, unlimited) holding `amount` stroops, directly. */
export function seedTrustline(net: Localnet, holder: string, asset: Asset, amount: bigint): void {
  const chain = net.chain;
  const seq = chain.latest.sequence + 1;
  const tla = asset.toTrustLineXDRObject();
  const acc = loadAccount(chain.store, holder);
  if (!acc) throw new Error(`seedTrustline: ${holder} does not exist`);
  const key = trustlineKey(holder, tla);
  const existing = chain.store.get(key);
  const prevBalance = existing?.data.type === "trustline" ? existing.data.trustLine.balance : 0n;
  const changes = new Map<string, xdr.LedgerEntry | null>();
  changes.set(
    key,
    new xdr.LedgerEntry({
      lastModifiedLedgerSeq: seq,
      data: xdr.LedgerEntryData.trustline(
        new xdr.TrustLineEntry({
          accountId: publicKeyXdr(holder),
          asset: tla,
          balance: prevBalance + amount,
          limit: INT64_MAX,
          flags: TL_AUTHORIZED,
          ext: xdr.TrustLineEntryExt.v0(),
        }),
      ),
      ext: xdr.LedgerEntryExt.v0(),
    }),
  );
  if (!existing) {
    changes.set(
      accountKey(holder),
      new xdr.LedgerEntry({
        lastModifiedLedgerSeq: seq,
        data: xdr.LedgerEntryData.account(
          withAccount(acc, { numSubEntries: acc.numSubEntries + 1 }),
        ),
        ext: xdr.LedgerEntryExt.v0(),
      }),
    );
  }
  chain.applyDirect(changes);
}

/** Deploys the SACs and funds the dev accounts. */
export async function setupDevChain(net: Localnet, opts: DevSetupOptions = {}): Promise<DevChain> {
  const names = opts.accounts ?? ["alice", "bob", "keeper1", "keeper2"];
  const xlm = opts.xlm ?? 10_000n;
  const usdcUnits = opts.usdc ?? 100_000n;
  const issuer = Keypair.random();
  await net.fund(issuer.publicKey(), xlm);
  const usdcAsset = new Asset("USDC", issuer.publicKey());
  const contracts = {
    xlm: await net.deployAsset(Asset.native()),
    usdc: await net.deployAsset(usdcAsset),
  };
  const accounts: Record<string, DevAccount> = {
    usdc_issuer: { public: issuer.publicKey(), secret: issuer.secret() },
  };
  for (const name of names) {
    const kp = Keypair.random();
    await net.fund(kp.publicKey(), xlm);
    seedTrustline(net, kp.publicKey(), usdcAsset, usdcUnits * 10_000_000n);
    accounts[name] = { public: kp.publicKey(), secret: kp.secret() };
  }
  await net.closeLedgers(1);
  return { contracts, accounts };
}
