//! Empty: this crate only pins `blend-contract-sdk` so that `cargo fetch` brings its Wasm files.
#![no_std]
