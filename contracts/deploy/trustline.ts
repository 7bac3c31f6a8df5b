/**
 * `main.ts trustline --asset CODE:ISSUER`: adds a classic trustline to the keeper's account (the
 * key in `KEEPER_SECRET`, environment or `.env`, never a flag), so that it can hold the asset —
 * on testnet, Circle's USDC before the faucet can pay it and before registration pulls the stake.
 * The network is the keeper's (`SOROBAN_RPC`, `NETWORK_PASSPHRASE`, testnet by default). Prints
 * the asset's Stellar Asset Contract id, the keeper's `USDC_CONTRACT`.
 *
 * @module
 */
import { sendChangeTrust } from "@vigil/soroban/change_trust";
import { parseArgs } from "node:util";
import { Asset, Keypair, Networks, StrKey, xdr } from "@stellar/stellar-sdk";
import { ChainRpc } from "@vigil/soroban/rpc";
import { readEnvironment } from "@vigil/util/env";
import { redactUrl, redactUrlsIn } from "@vigil/util/url_redact";

/** Help text of `main.ts trustline`. */
export const TRUSTLINE_HELP = `Usage: main.ts trustline --asset CODE:ISSUER

Adds a trustline for the classic asset CODE:ISSUER to the account of KEEPER_SECRET, so that it can
hold the asset (e.g. Circle's testnet USDC before its faucet pays it). Does nothing when the
trustline exists. Prints the asset's Stellar Asset Contract id (the keeper's USDC_CONTRACT).

Environment (or .env in the working directory; the environment wins):
  KEEPER_SECRET        the account's secret seed (S…); never a flag, never printed
  SOROBAN_RPC          Soroban JSON-RPC endpoint (default https://soroban-testnet.stellar.org)
  NETWORK_PASSPHRASE   must match the RPC's network (default the testnet passphrase)

Options:
  --asset <CODE:ISSUER>  the asset, e.g. USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5
  -h, --help             show this help
`;

const DEFAULT_RPC = "https://soroban-testnet.stellar.org";

/** A command-line mistake or a failed step: one line, exit code 1. */
class TrustlineError extends Error {}

/** The classic asset of `CODE:ISSUER`, else a {@link TrustlineError}. */
export function parseAsset(text: string): Asset {
  const m = /^([A-Za-z0-9]{1,12}):(G[A-Z2-7]{55})$/.exec(text.trim());
  if (!m || !StrKey.isValidEd25519PublicKey(m[2])) {
    throw new TrustlineError(
      `--asset ${text} is not CODE:ISSUER (a 1–12 character code and the issuer's G… key)`,
    );
  }
  return new Asset(m[1], m[2]);
}

const short = (e: unknown): string =>
  redactUrlsIn((e instanceof Error ? e.message : String(e)).split("\n")[0]);

/** Runs `main.ts trustline`; returns the exit code. */
export async function runTrustline(argv: string[], dir = Deno.cwd()): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { asset: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }));
  } catch (e) {
    console.error(`trustline: ${(e as Error).message}\n\n${TRUSTLINE_HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(TRUSTLINE_HELP);
    return 0;
  }
  const read = readEnvironment({ dir });
  for (const w of read.warnings) console.error(`trustline: warning: ${w}`);
  try {
    if (!values.asset) throw new TrustlineError("--asset CODE:ISSUER is required");
    const asset = parseAsset(values.asset);
    const secret = read.env.KEEPER_SECRET?.trim();
    if (!secret) throw new TrustlineError("missing required env: KEEPER_SECRET");
    if (!StrKey.isValidEd25519SecretSeed(secret)) {
      throw new TrustlineError("invalid KEEPER_SECRET: expected a Stellar secret seed (S…)");
    }
    const keypair = Keypair.fromSecret(secret);
    const url = read.env.SOROBAN_RPC?.trim() || DEFAULT_RPC;
    const passphrase = read.env.NETWORK_PASSPHRASE?.trim() || Networks.TESTNET;
    const line = await addTrustline(url, passphrase, keypair, asset);
    console.log(`trustline: ${line}`);
    console.log(
      `trustline: USDC_CONTRACT=${
        asset.contractId(passphrase)
      } (the Stellar Asset Contract of ${asset.getCode()} on "${passphrase}")`,
    );
    return 0;
  } catch (e) {
    if (e instanceof TrustlineError) {
      console.error(`trustline: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

/** Adds the trustline unless it exists; returns what happened, as one line. */
async function addTrustline(
  url: string,
  passphrase: string,
  keypair: Keypair,
  asset: Asset,
): Promise<string> {
  const me = keypair.publicKey();
  const name = `${asset.getCode()}:${asset.getIssuer()}`;
  if (asset.getIssuer() === me) {
    throw new TrustlineError(`${me} is the issuer of ${name}: an issuer needs no trustline`);
  }
  const chain = new ChainRpc(url, { networkPassphrase: passphrase });
  try {
    let network: string;
    try {
      network = (await chain.server.getNetwork()).passphrase;
    } catch (e) {
      throw new TrustlineError(`cannot reach the RPC at ${redactUrl(url)}: ${short(e)}`);
    }
    if (network !== passphrase) {
      throw new TrustlineError(
        `NETWORK_PASSPHRASE is "${passphrase}", but ${redactUrl(url)} serves "${network}"`,
      );
    }
    try {
      await chain.server.getAccount(me);
    } catch {
      throw new TrustlineError(
        `account ${me} does not exist on "${network}": fund it first (testnet: ` +
          `curl "https://friendbot.stellar.org/?addr=${me}")`,
      );
    }
    const key = xdr.LedgerKey.trustline(
      new xdr.LedgerKeyTrustLine({
        accountId: Keypair.fromPublicKey(me).xdrAccountId(),
        asset: asset.toTrustLineXDRObject(),
      }),
    );
    if ((await chain.server.getLedgerEntries(key)).entries.length > 0) {
      return `${name} already trusted by ${me}: nothing sent`;
    }
    const r = await sendChangeTrust(chain, keypair, asset);
    if (r.failed) {
      // op_low_reserve: each trustline raises the account's minimum balance by 0.5 XLM.
      throw new TrustlineError(
        `ChangeTrust for ${name} failed (${r.failed.opCode ?? "?"}) in tx ${r.hash}`,
      );
    }
    return `${name} trusted by ${me} (tx ${r.hash}, ledger ${r.ledger})`;
  } catch (e) {
    if (e instanceof TrustlineError) throw e;
    throw new TrustlineError(`ChangeTrust for ${name} was not confirmed: ${short(e)}`);
  } finally {
    chain.close();
  }
}
