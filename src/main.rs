//! `cargo capcheck`: the binary. All logic lives in the `capcheck` library.

// syn's trees are many small allocations; mimalloc parses a large workspace about a third faster
// than the system allocator (see docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // syn parses expressions recursively; a deeply nested file (syn's own test corpus) overflows
    // a worker thread's default 2 MiB stack in a debug build. Stacks are reserved, not touched.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(32 << 20)
        .build_global();
    capcheck::cli::main()
}
