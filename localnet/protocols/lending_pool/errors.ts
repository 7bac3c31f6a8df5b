/**
 * Blend v2 `PoolError` codes (pool/src/errors.rs; names as the `blend-contract-sdk` pool Wasm's
 * spec has them — `tests/keeper/real_blend_liquidation_test.ts` compares).
 *
 * @module
 */

/** Error code by name. */
export const PoolError = {
  InternalError: 1,
  AlreadyInitializedError: 3,
  UnauthorizedError: 4,
  NegativeAmountError: 8,
  BalanceError: 10,
  OverflowError: 12,
  BadRequest: 1200,
  InvalidPoolConfigArgs: 1201,
  InvalidReserveMetadata: 1202,
  InitNotUnlocked: 1203,
  StatusNotAllowed: 1204,
  InvalidHf: 1205,
  InvalidPoolStatus: 1206,
  InvalidUtilRate: 1207,
  MaxPositionsExceeded: 1208,
  InternalReserveNotFound: 1209,
  InvalidPrice: 1210,
  InvalidLiquidation: 1211,
  AuctionInProgress: 1212,
  InvalidLiqTooLarge: 1213,
  InvalidLiqTooSmall: 1214,
  InterestTooSmall: 1215,
  InvalidBTokenMintAmount: 1216,
  InvalidBTokenBurnAmount: 1217,
  InvalidDTokenMintAmount: 1218,
  InvalidDTokenBurnAmount: 1219,
  ExceededSupplyCap: 1220,
  InvalidBid: 1221,
  InvalidLot: 1222,
  ReserveDisabled: 1223,
  MinCollateralNotMet: 1224,
} as const;
