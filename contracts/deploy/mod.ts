/**
 * Deploying Vigil's contracts: to any network (`net.ts`, what `main.ts deploy` runs through
 * `cli.ts`) and the local development deployment (`deploy_vigil.ts`).
 *
 * @module
 */
export * from "./net.ts";
export * from "./deploy_vigil.ts";
export { DEPLOY_HELP, runDeploy } from "./cli.ts";
