//! `cargo capcheck`: the binary. All logic lives in the `capcheck` library.

// syn's trees are many small allocations; mimalloc parses a large workspace about a third faster
// than the system allocator (see docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    capcheck::cli::main()
}
