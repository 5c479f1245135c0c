//! The command line's answers to hostile input, each a
//! regression test of a defect once found in it. Exit 2 with a message naming the key or file, or a
//! quiet end; never a panic, an abort or a silent nonsense result with exit 0.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{Study, assert_input_error, pbdfit_in, scratch, stderr};

#[test]
fn a_compound_scene_that_includes_itself_exits_2_naming_the_chain() {
    let dir = scratch("loop");
    std::fs::write(dir.join("loop.toml"), "name = \"loop\"\ncompound = [\"loop.toml\"]\n").unwrap();
    let o = pbdfit_in(&dir, &["fem", "--scene", "loop.toml", "--young", "1e3", "--poisson", "0.3"]);
    assert_input_error(&o, &["loop.toml -> ", "includes itself"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs pbdfit with its stdout (or stderr) a pipe whose reader reads at most `keep` bytes and then
/// closes it; returns the exit status and what went to the other stream.
fn with_short_reader(args: &[&str], keep: usize, on_stderr: bool) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbdfit"));
    command.args(args).stdin(Stdio::null());
    if on_stderr {
        command.stderr(Stdio::piped()).stdout(Stdio::null());
    } else {
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
    }
    let mut child = command.spawn().expect("run pbdfit");
    let mut reader: Box<dyn Read> =
        if on_stderr { Box::new(child.stderr.take().unwrap()) } else { Box::new(child.stdout.take().unwrap()) };
    let mut buffer = vec![0; keep];
    let mut got = 0;
    while got < keep {
        match reader.read(&mut buffer[got..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => got += k,
        }
    }
    drop(reader);
    let mut other = String::new();
    if !on_stderr {
        child.stderr.take().unwrap().read_to_string(&mut other).unwrap();
    }
    (child.wait().unwrap().code(), other)
}

#[test]
fn a_closed_pipe_ends_every_printing_subcommand_quietly() {
    // Reader gone before anything is read, and a reader that takes the first bytes of an output longer
    // than a pipe's buffer (64 KiB on Linux): std's println! panicked on the broken pipe (exit 101).
    let floor = ["--scene", "gravity-floor", "--young", "1e3", "--poisson", "0.3"];
    let fem: Vec<&str> = ["fem", "--n", "16", "--json"].iter().chain(&floor).copied().collect();
    let compound: Vec<&str> =
        ["fem", "--n", "8", "--json", "--scene", "gravity", "--young", "1e3", "--poisson", "0.3"].to_vec();
    let simulate = ["simulate", "--scene", "gravity-floor", "--n", "8", "--kd", "0.5", "--kv", "0.5", "--json"];
    let cases: [(&[&str], usize); 6] =
        [(&["scenes"], 0), (&["scenes"], 10), (&fem, 100), (&compound, 0), (&simulate, 100), (&["fem", "--help"], 0)];
    for (args, keep) in cases {
        let (code, stderr) = with_short_reader(args, keep, false);
        assert!(matches!(code, Some(0) | Some(141)), "{args:?}: exit {code:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // The same on stderr: an error message to a closed reader.
    let (code, _) = with_short_reader(&["fem", "--scene", "no-such-scene"], 0, true);
    assert!(matches!(code, Some(2) | Some(141)), "exit {code:?}");
}

#[test]
fn lookup_refuses_a_table_with_a_value_outside_the_box() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fits/tables/pbd");
    let csv = std::fs::read_to_string(shipped.join("table.csv")).unwrap();
    let json = std::fs::read_to_string(shipped.join("table.json")).unwrap();
    for value in ["NaN", "inf", "-5"] {
        let dir = scratch("table");
        let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
        let mut fields: Vec<String> = lines[1].split(',').map(str::to_string).collect();
        fields[5] = value.to_string(); // kd
        lines[1] = fields.join(",");
        std::fs::write(dir.join("table.csv"), lines.join("\n") + "\n").unwrap();
        std::fs::write(dir.join("table.json"), &json).unwrap();
        let o = pbdfit_in(
            &dir,
            &["lookup", "--table", ".", "--young", "100", "--poisson", "0", "--dt", "0.001", "--nit", "1", "--n", "1"],
        );
        assert_input_error(&o, &["table.csv line 2", "kd = "]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn nothing_to_fit_exits_2_naming_the_scene_and_the_cause() {
    let dir = scratch("still");
    let cube = "[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n";
    std::fs::write(dir.join("zero.toml"), format!("name = \"zero\"\n{cube}[load]\ngravity = [0, 0, 0]\n")).unwrap();
    let o = pbdfit_in(&dir, &["fit", "--scene", "zero.toml", "--young", "1e3", "--poisson", "0.3"]);
    assert_input_error(&o, &["scene zero", "moves no free vertex", "nothing to fit"]);
    // Every vertex held: torsion at N = 1 (its faces y = 0 and y = 1 are all the vertices there).
    let o = pbdfit_in(&dir, &["fit", "--scene", "torsion", "--n", "1"]);
    assert_input_error(&o, &["scene torsion", "moves no free vertex"]);
    let o = pbdfit_in(&dir, &["fit", "--scene", "gravity-floor", "--young", "1e300", "--poisson", "0.3"]);
    assert_input_error(&o, &["scene gravity-floor", "nothing to fit"]);
    let o = pbdfit_in(&dir, &["fit", "--scene", "gravity-floor", "--young", "1e-300", "--poisson", "0.3"]);
    assert_input_error(&o, &["scene gravity-floor", "not finite"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn non_finite_physics_exits_2_naming_the_key() {
    let dir = scratch("physics");
    let cube = "[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n";
    let cases = [
        ("[material]\ndensity = 1e308\n", "material.density"),
        ("[material]\ndensity = 1e-320\n", "material.density"),
        ("[load]\ngravity = [0, -1e300, 0]\n", "load.gravity"),
        ("[load]\ngravity = [0, -1e308, 0]\n", "load.gravity"),
        ("[[load.traction]]\nplane = \"y = 1\"\ntraction = [0, 1e308, 0]\n", "load.traction"),
    ];
    for (extra, key) in cases {
        std::fs::write(dir.join("s.toml"), format!("name = \"s\"\n{cube}{extra}")).unwrap();
        // The inputs are checked where the body is built, for every command; a product that only the
        // solution overflows (gravity 1e300 on a body of 1 kg) is the FEM's to report.
        let o = pbdfit_in(&dir, &["fem", "--scene", "s.toml", "--n", "2"]);
        assert_input_error(&o, &[key]);
        let o = pbdfit_in(&dir, &["simulate", "--scene", "s.toml", "--n", "2", "--kd", "0.5", "--kv", "0.5"]);
        assert!(o.status.code() == Some(2) && !stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    // Finite inputs whose solution overflows.
    let o = pbdfit_in(&dir, &["fem", "--scene", "gravity-floor", "--young", "1e-300", "--poisson", "0.3"]);
    assert_input_error(&o, &["not finite"]);
    // A displacement beyond the body's size is solved, with a warning.
    let o = pbdfit_in(&dir, &["fem", "--scene", "gravity-floor", "--young", "1e-3", "--poisson", "0.3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning") && stderr(&o).contains("exceeds the body's size"), "{}", stderr(&o));
    let o = pbdfit_in(&dir, &["fem", "--scene", "gravity-floor", "--young", "1e3", "--poisson", "0.3"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs pbdfit, killing it after `patience` (a regression to a run with no end then fails on its exit
/// status instead of hanging the test suite; no time is asserted).
fn pbdfit_or_kill(dir: &Path, args: &[&str], patience: std::time::Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbdfit"))
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pbdfit");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < patience {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    child.wait_with_output().unwrap()
}

#[test]
fn a_dynamic_run_with_no_end_is_refused() {
    let dir = scratch("dynamic");
    let patience = std::time::Duration::from_secs(300);
    let o = pbdfit_or_kill(
        &dir,
        &["fem", "--scene", "gravity-floor", "--dynamic", "--time", "1e300", "--dt", "0.01"],
        patience,
    );
    assert_input_error(&o, &["1.000e302 steps", "at most 2000000"]);
    // Item 10: a tiny dt named, not "the matrix is singular".
    let o = pbdfit_or_kill(&dir, &["fem", "--scene", "gravity-floor", "--dynamic", "--dt", "1e-300"], patience);
    assert_input_error(&o, &["dt = 1e-300", "too small"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_vtu_piece_without_points_exits_2_without_a_backtrace() {
    let dir = scratch("vtu");
    let cube =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../pbdfit-mesh/tests/data/cube.vtu"))
            .unwrap();
    let start = cube.find("<Points>").unwrap();
    let end = cube.find("</Points>").unwrap() + "</Points>".len();
    let cut = format!("{}{}", &cube[..start], &cube[end..]).replace("<Piece ", "<!-- <Points --><Piece ");
    std::fs::write(dir.join("sneaky.vtu"), cut).unwrap();
    let scene = "name = \"s\"\n[body]\nmesh = \"sneaky.vtu\"\n[[held]]\nplane = \"y = 0\"\n";
    std::fs::write(dir.join("s.toml"), scene).unwrap();
    let o = pbdfit_in(&dir, &["fem", "--scene", "s.toml"]);
    assert_input_error(&o, &["sneaky.vtu", "has no <Points>"]);
    assert!(!stderr(&o).contains("backtrace") && !stderr(&o).contains("vtkio"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_blame_the_right_thing() {
    let dir = scratch("blame");
    // Held vertices on one line: the input's fault (exit 2), not an internal error.
    let edge = "name = \"edge\"\n[body]\nshape = \"unit-cube\"\n[[held]]\nbox = { min = [0, 0, 0], max = [1, 0, 0] }\n";
    std::fs::write(dir.join("edge.toml"), edge).unwrap();
    let o = pbdfit_in(&dir, &["fem", "--scene", "edge.toml"]);
    assert_input_error(&o, &["edge", "one line"]);
    // A mesh scaled to 1e-100 m holds one face, as the unit one does.
    let cube =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../pbdfit-mesh/tests/data/cube.vtu"))
            .unwrap()
            .replace("1.0 ", "1e-100 ")
            .replace("1.0<", "1e-100<");
    std::fs::write(dir.join("tiny.vtu"), cube).unwrap();
    let tiny = "name = \"tiny\"\n[body]\nmesh = \"tiny.vtu\"\n[[held]]\nplane = \"y = 0\"\n";
    std::fs::write(dir.join("tiny.toml"), tiny).unwrap();
    let o = pbdfit_in(&dir, &["fem", "--scene", "tiny.toml", "--json"]);
    let e = stderr(&o);
    assert!(!e.contains("one line") && !e.contains("internal error"), "{e}");
    assert!(o.status.success(), "{e}");
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["fixed"].as_array().unwrap().len(), 4, "{json}");
    // Its displacements (about 1e-202 m) are not printed as 0.
    let o = pbdfit_in(&dir, &["fem", "--scene", "tiny.toml"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("max |u|") && !text.contains("max |u|     0.0000000000e0"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn values_that_start_with_a_hyphen_are_values() {
    let dir = scratch("hyphen");
    // `--rayleigh -5,0` was read as an unknown flag; now the value is checked and named.
    let o = pbdfit_in(&dir, &["fem", "--scene", "gravity-floor", "--dynamic", "--rayleigh", "-5,0"]);
    assert_input_error(&o, &["damping", "-5"]);
    // Fractions with a sign, the sibling: the value reaches its check.
    let o = pbdfit_in(&dir, &["fem", "--scene", "gravity-floor", "--dynamic", "--dt", "-1/100"]);
    assert_input_error(&o, &["dt = -0.01"]);
    let o = pbdfit_in(&dir, &["simulate", "--scene", "gravity-floor", "--kd", "0.5", "--kv", "0.5", "--dt", "-1/100"]);
    assert!(o.status.code() == Some(2) && !stderr(&o).contains("unexpected argument"), "{}", stderr(&o));
    let lookup = ["lookup", "--table", "pbd", "--young", "1e3", "--poisson", "0.3", "--nit", "1", "--n", "1"];
    let o = pbdfit_in(&dir, &[&lookup[..], &["--dt", "-1/100"]].concat());
    assert!(o.status.code() == Some(2) && !stderr(&o).contains("unexpected argument"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_out_folder_that_cannot_be_written_is_the_input() {
    let dir = scratch("out");
    let study = Study { name: "s", poisson: ["0.0", "0.0", "0.1"], fit: "grid = 3", ..Study::default() }.toml();
    std::fs::write(dir.join("s.toml"), &study).unwrap();
    std::fs::write(dir.join("a-file"), "").unwrap();
    for out in ["a-file", "a-file/below"] {
        let o = pbdfit_in(&dir, &["study", "s.toml", "--out", out]);
        assert_input_error(&o, &["results folder", out, "cannot be written"]);
        assert!(!stderr(&o).contains("internal error") && !stderr(&o).contains("finished before"), "{}", stderr(&o));
    }
    // A read-only folder (where permissions apply: not for root).
    let locked = dir.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(locked.join("probe"), "").is_err() {
        let o = pbdfit_in(&dir, &["study", "s.toml", "--out", "locked"]);
        assert_input_error(&o, &["results folder", "cannot be written"]);
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
