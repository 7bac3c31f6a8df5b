// Vigil's AssemblyScript contract SDK for Soroban (see contracts/README.md).
export * from "./val";
export * from "./int";
export * from "./contract";
