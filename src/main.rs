//! `cargo capcheck`: the binary. All logic lives in the `capcheck` library.

fn main() -> std::process::ExitCode {
    capcheck::cli::main()
}
