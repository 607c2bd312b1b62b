//! `cargo capcheck`: the binary. All logic lives in the `capcheck` library.

// syn's trees are many small allocations; mimalloc parses a large workspace about a third faster
// than the system allocator (see docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // syn parses expressions recursively, and our walks recurse with it: every thread that may
    // parse (the workers, and the main job's own thread) gets a stack that holds the deepest
    // nesting `syntax::depth` lets through. Stacks are reserved, not touched.
    let stack = capcheck::STACK;
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(stack)
        .build_global();
    match std::thread::Builder::new()
        .name("capcheck".into())
        .stack_size(stack)
        .spawn(capcheck::main)
    {
        // A panic has printed its message; 101 is the code Rust gives it on the main thread.
        Ok(job) => job.join().unwrap_or(std::process::ExitCode::from(101)),
        Err(_) => capcheck::main(),
    }
}
