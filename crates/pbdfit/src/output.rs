//! Standard output and error that end the process quietly when their reader has gone.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe returns EPIPE, and std's `println!` panics on it:
//! `pbdfit scenes | head -c 10` printed a panic message. `main.rs` shadows `println!`,
//! `print!`, `eprintln!` and `eprint!` with macros that call [`write`], for every module of the binary,
//! so that no print in any subcommand can panic that way. A closed reader ends the process at once with
//! [`BROKEN_PIPE_EXIT`] and no message, as a program killed by SIGPIPE would; any other failure to write
//! ends it with exit 1 and the reason on stderr (if stderr can take it).

use std::io::{ErrorKind, Write};

/// The exit code when the reader of stdout or stderr has gone: 128 + SIGPIPE (13), what a shell
/// reports for a program that SIGPIPE ended.
pub const BROKEN_PIPE_EXIT: i32 = 141;

/// Which standard stream a print goes to.
#[derive(Debug, Clone, Copy)]
pub enum Stream {
    /// Standard output.
    Out,
    /// Standard error.
    Err,
}

/// Writes `args` (and a newline if `newline`) to `stream` as one locked write, ending the process when
/// the stream cannot take it (see the module's documentation).
pub fn write(stream: Stream, args: std::fmt::Arguments<'_>, newline: bool) {
    let result = match stream {
        Stream::Out => put(&mut std::io::stdout().lock(), args, newline),
        Stream::Err => put(&mut std::io::stderr().lock(), args, newline),
    };
    if let Err(e) = result {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        let name = match stream {
            Stream::Out => "standard output",
            Stream::Err => "standard error",
        };
        let _ = writeln!(std::io::stderr(), "pbdfit: internal error: cannot write {name}: {e}");
        std::process::exit(1);
    }
}

fn put(out: &mut impl Write, args: std::fmt::Arguments<'_>, newline: bool) -> std::io::Result<()> {
    out.write_fmt(args)?;
    if newline {
        out.write_all(b"\n")?;
    }
    // stdout is line-buffered only on a terminal's terms: flush, so that a closed reader shows here and
    // not in the exit's silent final flush.
    out.flush()
}
