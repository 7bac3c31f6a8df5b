/**
 * Classic transactions through the one send path: a ChangeTrust (a trustline for a classic
 * asset: the keeper for a lot or bid asset it must hold, `main.ts trustline` for an operator's or
 * a depositor's USDC) and the keeper's funding of its channel accounts both send this way.
 *
 * @module
 */
import {
  type Asset,
  type Keypair,
  Operation,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import { latestLedger, ledgerNow } from "./ledger.ts";
import type { ChainRpc } from "./rpc.ts";
import { type Confirmed, sendAndConfirm } from "./send.ts";
import {
  DEFAULT_VALID_FOR_LEDGERS,
  inclusionFeeFor,
  type InvokeOptions,
  withSourceLock,
} from "./tx.ts";

/**
 * Signs and sends `changeTrust(asset)` from `keypair`'s account, bidding the fee-stats inclusion
 * fee within `opts.maxInclusionFee`, valid for `validForLedgers` after the latest ledger; returns
 * it confirmed (an included FAILED one has `failed` set, e.g. `op_low_reserve`: each trustline
 * raises the account's minimum balance by 0.5 XLM).
 */
export function sendChangeTrust(
  chain: ChainRpc,
  keypair: Keypair,
  asset: Asset,
  opts: InvokeOptions = {},
): Promise<Confirmed> {
  return sendClassic(chain, keypair, [Operation.changeTrust({ asset })], opts);
}

/**
 * Signs and sends classic `operations` in ONE transaction from `keypair`'s account under its
 * submission lock ({@link withSourceLock}), bidding the fee-stats inclusion fee within
 * `opts.maxInclusionFee`, valid for `validForLedgers` after the latest ledger; returns it
 * confirmed (`failed` set when included but failed).
 */
export function sendClassic(
  chain: ChainRpc,
  keypair: Keypair,
  operations: readonly xdr.Operation[],
  opts: InvokeOptions = {},
): Promise<Confirmed> {
  const me = keypair.publicKey();
  return withSourceLock(chain, me, async () => {
    const [account, fee, head] = await Promise.all([
      chain.server.getAccount(me),
      inclusionFeeFor(chain, opts),
      latestLedger(chain),
    ]);
    const b = new TransactionBuilder(account, {
      fee: String(fee),
      networkPassphrase: chain.networkPassphrase,
      timebounds: { minTime: 0, maxTime: ledgerNow(chain) + (opts.validForSec ?? 60) },
      ledgerbounds: {
        minLedger: 0,
        maxLedger: head.sequence + 1 + (opts.validForLedgers ?? DEFAULT_VALID_FOR_LEDGERS),
      },
    });
    for (const op of operations) b.addOperation(op);
    const tx = b.build();
    tx.sign(keypair);
    return await sendAndConfirm(chain, tx, opts);
  });
}
