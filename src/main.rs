//! `cargo capcheck`: the binary. All logic lives in the `capcheck` library.

// syn's trees are many small allocations; mimalloc parses a large workspace about a third faster
// than the system allocator (see docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // mimalloc's arenas are aligned for transparent huge pages, and where the system backs them
    // so, every 2 MiB region touched is zeroed and resident whole: a run's peak memory doubles
    // (117 MB against 60 MB on the bench corpus) for no speed we could measure. A run is short
    // and its heap is sparse; it asks for small pages (docs/benchmarks.md).
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes integer arguments and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
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
