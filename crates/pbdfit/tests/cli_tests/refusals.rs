//! Refusals of bad input through the command line: each test is named after what it pins and runs an
//! input that was once answered wrongly (or the same input written here) to the exit code and message it must give.

use std::path::{Path, PathBuf};

use crate::common::{self, assert_input_error, assert_refused, displacements, json, pbdfit, scratch, stderr, stdout};

/// Markers at every vertex of gravity-wall at N = 2 that moves, with the simulated PBD displacements
/// (kd 0.37, kv 0.62) and, when given, a sigma column; written to `dir/name`.
fn wall_markers(dir: &Path, name: &str, sigma: Option<&str>) -> PathBuf {
    let sim =
        json(&pbdfit(&["simulate", "--scene", "gravity-wall", "--n", "2", "--kd", "0.37", "--kv", "0.62", "--json"]));
    let u = displacements(&sim);
    let x: Vec<[f64; 3]> =
        sim["vertices"].as_array().unwrap().iter().map(|v| [0, 1, 2].map(|k| v[k].as_f64().unwrap())).collect();
    let mut csv = String::from(if sigma.is_some() { "x,y,z,ux,uy,uz,sigma\n" } else { "x,y,z,ux,uy,uz\n" });
    for i in (0..x.len()).filter(|&i| u[i].iter().any(|c| *c != 0.0)) {
        csv += &format!("{},{},{},{},{},{}", x[i][0], x[i][1], x[i][2], u[i][0], u[i][1], u[i][2]);
        csv += &sigma.map(|s| format!(",{s}\n")).unwrap_or_else(|| "\n".into());
    }
    let path = dir.join(name);
    std::fs::write(&path, csv).unwrap();
    path
}

/// `--max-seconds 1e19` panicked (exit 101) converting the limit to a `Duration` and adding it to
/// an `Instant`; a limit beyond what the clock holds is no limit.
#[test]
fn a_time_limit_beyond_the_clock_is_no_limit() {
    for limit in ["1e19", "1e300"] {
        let o = pbdfit(&["fit", "--scene", "gravity-floor", "--n", "1", "--max-seconds", limit, "--json"]);
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        let fit = json(&o);
        assert_eq!(fit["status"], "converged", "--max-seconds {limit}");
    }
}

/// Nothing bounded `--grid` or `[fit] grid`: `--grid 1000000` aborted allocating (exit 134), or
/// took the machine. Refused before any work, naming the option and the most points per axis allowed.
#[test]
fn a_grid_beyond_the_bound_is_refused_before_any_work() {
    assert_refused(
        &["fit", "--scene", "gravity-floor", "--n", "1", "--grid", "1000000"],
        &["--grid 1000000", "1000000^2 grid points", "at most 316 points per axis"],
    );
    let dir = scratch("d2");
    let file = dir.join("t-grid.toml");
    std::fs::write(
        &file,
        "name = \"t-grid\"\nmodel = \"pbd\"\nscene = \"gravity-floor\"\n[fit]\ngrid = 1000000\n[axes]\n\
         young = [1e3, 1e4]\npoisson = [0.2, 0.3]\ndt = [0.01]\nnit = [1]\nn = [1]\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = pbdfit(&["table", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_input_error(&o, &["fit.grid", "at most"]);
    assert!(!out.join("table.csv").exists());
}

/// `--bootstrap 1000000000 --max-seconds 5` ran on past 120 s: K had no bound. Refused before the fit.
/// (That the refits stop at the time limit is pinned in pbdfit-fit's `tests/fit_tests/measured.rs`, where the
/// deadline can be made one that has passed.)
#[test]
fn an_unbounded_bootstrap_is_refused() {
    let dir = scratch("d3");
    let markers = wall_markers(&dir, "m.csv", None);
    let m = markers.to_str().unwrap();
    assert_refused(
        &[
            "fit",
            "--scene",
            "gravity-wall",
            "--n",
            "2",
            "--measured",
            m,
            "--bootstrap",
            "1000000000",
            "--max-seconds",
            "5",
        ],
        &["--bootstrap", "1000000000 bootstrap replicates", "give 2 to 10000"],
    );
}

/// A mass-spring rest state on a contact scene settled by up to 2,000,000 Verlet steps without looking
/// at the fit's deadline (`--max-seconds 20` took 59 s). With a limit that passes before the first step,
/// no grid point settles, and the message names the time limit (deterministic: no point can settle in a
/// nanosecond).
#[test]
fn mass_spring_contact_rest_states_stop_at_the_time_limit() {
    let o = pbdfit(&[
        "fit",
        "--scene",
        "indentation",
        "--n",
        "1",
        "--model",
        "mass-spring-volume",
        "--max-seconds",
        "1e-9",
    ]);
    // Since the D17 fix the time limit is named as the cause, not the points' failures.
    assert_input_error(&o, &["time limit (--max-seconds", "passed before any grid point reached its rest state"]);
}

/// `baseline` printed kd = kv = NaN at dt = 1e-300 and inf at E = 5e-324, both with exit 0.
#[test]
fn a_mapping_that_leaves_f64_is_refused() {
    let base = ["--poisson", "0.3", "--nit", "4", "--n", "1"];
    let run = |mapping: &str, young: &str, dt: &str| {
        let mut args = vec!["baseline", "--mapping", mapping, "--young", young, "--dt", dt];
        args.extend(base);
        pbdfit(&args)
    };
    assert_input_error(&run("pbd-van-gelder-bulk", "1e3", "1e-300"), &["kd = NaN", "dt^2 leaves f64's range"]);
    let o = run("xpbd-strain-lame", "5e-324", "0.01");
    assert_input_error(&o, &["is not a finite number", "1 / E overflows"]);
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}

/// Marker sigmas of 1e300 m made every error 0 (the fit "converged" at an arbitrary grid point) and
/// of 1e-300 m every error infinite (exit 1, "internal error: internal error: ..."). Both are refused,
/// naming the file, the row and the ratio to the displacements.
#[test]
fn marker_sigmas_that_leave_f64_are_refused() {
    let dir = scratch("d10");
    for (name, sigma) in [("huge.csv", "1e300"), ("tiny.csv", "1e-300")] {
        let m = wall_markers(&dir, name, Some(sigma));
        let o = pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", m.to_str().unwrap()]);
        assert_input_error(&o, &[name, "row 1", "sigma =", "over- or underflows f64"]);
        assert!(!stderr(&o).contains("internal error"), "{}", stderr(&o));
        let o = pbdfit(&["identify", "--scene", "gravity-wall", "--n", "2", "--measured", m.to_str().unwrap()]);
        assert_input_error(&o, &[name, "sigma ="]);
    }
    // A sibling: displacements whose squares leave f64 read as "all observed displacements are 0".
    for (name, u) in [("tiny-u.csv", "4e-303"), ("huge-u.csv", "4e297")] {
        let path = dir.join(name);
        std::fs::write(&path, format!("x,y,z,ux,uy,uz\n0.5,0.5,0.5,0,-{u},0\n0.5,0.9,0.5,0,-{u},0\n")).unwrap();
        let o = pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", path.to_str().unwrap()]);
        assert_input_error(&o, &[name, "the observed displacements reach", "give them in m"]);
        assert!(!stderr(&o).contains("are 0"), "{}", stderr(&o));
    }
    // A sigma of a sensible size still fits (chi-square).
    let m = wall_markers(&dir, "ok.csv", Some("1e-5"));
    let fit =
        json(&pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", m.to_str().unwrap(), "--json"]));
    assert!(fit["reference"].as_str().unwrap().contains("chi-square"), "{}", fit["reference"]);
}

/// `--bootstrap 1` printed a "95 %" interval of zero width (excluding the fitted value) and
/// `--bootstrap 0` was ignored without a word. Both are refused, naming the allowed range.
#[test]
fn too_few_bootstrap_replicates_are_refused() {
    let dir = scratch("d11");
    let markers = wall_markers(&dir, "m.csv", None);
    let m = markers.to_str().unwrap();
    for k in ["0", "1"] {
        assert_refused(
            &["fit", "--scene", "gravity-wall", "--n", "2", "--measured", m, "--bootstrap", k],
            &[&format!("--bootstrap {k} bootstrap replicates"), "give 2 to 10000"],
        );
    }
    // Two refits give an interval, marked rough (fewer than 40).
    let o = pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", m, "--bootstrap", "2"]);
    let text = stdout(&o);
    assert!(o.status.success() && text.contains("2 of 2 refits") && text.contains("rough"), "{text}");
}

const SMALL_TABLE: &str = "name = \"small\"\nmodel = \"pbd\"\nscene = \"gravity-floor\"\n[fit]\ngrid = 5\n\
                           [axes]\nyoung = [1e3, 1e4]\npoisson = [0.0, 0.3]\ndt = [0.01]\nnit = [1]\nn = [1]\n";

/// The cells of `<scene>-table.csv` as lines of fields, and the index of column `name`.
fn table_rows(path: &Path) -> (Vec<Vec<String>>, impl Fn(&str) -> usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Vec<String>> = text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    let header = lines[0].clone();
    (lines, move |name: &str| header.iter().position(|h| h == name).unwrap())
}

fn write_rows(path: &Path, lines: &[Vec<String>]) {
    std::fs::write(path, lines.iter().map(|l| l.join(",") + "\n").collect::<String>()).unwrap();
}

/// A resumed table trusted every row: a row with status `ok` and a NaN went into `table.csv` with
/// exit 0 (and every lookup then refused the table), and of two rows for one node the last silently won
/// ("97 resumed" of 96 nodes). Such rows are taken out with a notice naming them; a part-built table
/// leaves their nodes missing, a build fits them again and writes the table it wrote before.
#[test]
fn a_resumed_table_does_not_trust_a_nan_or_duplicate_row() {
    let dir = scratch("d12");
    let file = dir.join("small.toml");
    std::fs::write(&file, SMALL_TABLE).unwrap();
    let out = dir.join("out");
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let built = pbdfit(&["table", f, "--out", o]);
    assert!(built.status.success(), "{}", stderr(&built));
    let table = std::fs::read(out.join("table.csv")).unwrap();
    let fits = out.join("gravity-floor-table.csv");
    let (lines, column) = table_rows(&fits);
    assert_eq!(lines.len(), 5, "a header and 4 nodes");

    // A NaN in an `ok` row: the part-built table leaves its node missing; nothing NaN is `ok`.
    let mut nan = lines.clone();
    nan[2][column("kd")] = "NaN".into();
    write_rows(&fits, &nan);
    let partial = pbdfit(&["table", f, "--out", o, "--partial"]);
    let e = stderr(&partial);
    assert!(partial.status.success(), "{e}");
    assert!(e.contains("removed 1 row(s) that cannot be resumed") && e.contains("status ok with kd `NaN`"), "{e}");
    let rows = common::csv_rows(&out.join("table.csv"));
    assert!(rows.iter().all(|r| r["status"] != "ok" || r["kd"].parse::<f64>().unwrap().is_finite()), "{rows:?}");
    assert_eq!(rows.iter().filter(|r| r["status"] == "missing").count(), 1);
    // The full build fits that node again: the table it wrote before, byte for byte.
    let rebuilt = pbdfit(&["table", f, "--out", o]);
    assert!(rebuilt.status.success(), "{}", stderr(&rebuilt));
    assert!(stdout(&rebuilt).contains("1 fitted now, 3 resumed"), "{}", stdout(&rebuilt));
    assert_eq!(std::fs::read(out.join("table.csv")).unwrap(), table);

    // Two disagreeing rows of one node: both out (which is right cannot be told), the node refitted.
    let (lines, column) = table_rows(&fits);
    let mut twice = lines.clone();
    let mut other = lines[1].clone();
    other[column("kd")] = "0.123".into();
    twice.push(other);
    write_rows(&fits, &twice);
    let rebuilt = pbdfit(&["table", f, "--out", o]);
    let e = stderr(&rebuilt);
    assert!(rebuilt.status.success(), "{e}");
    assert!(e.contains("removed 2 row(s)") && e.contains("another result of the fit of row"), "{e}");
    assert!(stdout(&rebuilt).contains("1 fitted now, 3 resumed"), "{}", stdout(&rebuilt));
    assert_eq!(std::fs::read(out.join("table.csv")).unwrap(), table);
    // A row written twice alike is one fit: resumed once, not counted twice.
    let (lines, _) = table_rows(&fits);
    let mut copy = lines.clone();
    copy.push(lines[1].clone());
    write_rows(&fits, &copy);
    let partial = pbdfit(&["table", f, "--out", o, "--partial"]);
    assert!(partial.status.success(), "{}", stderr(&partial));
    assert!(stderr(&partial).contains("a copy of row 1"), "{}", stderr(&partial));
    assert!(stdout(&partial).contains("4 resumed"), "{}", stdout(&partial));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table's resume checks a finished row as a new fit's record: an `ok` row with kd = 1.5 (outside
/// PBD's [0, 1]) went into `table.csv` as a node. The part-built table leaves its node missing, naming the
/// row; the build fits it again and writes the table it wrote before.
#[test]
fn a_resumed_table_row_outside_the_models_range_is_not_a_node() {
    let dir = scratch("kd-range");
    let file = dir.join("small.toml");
    std::fs::write(&file, SMALL_TABLE).unwrap();
    let out = dir.join("out");
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let built = pbdfit(&["table", f, "--out", o]);
    assert!(built.status.success(), "{}", stderr(&built));
    let table = std::fs::read(out.join("table.csv")).unwrap();
    let fits = out.join("gravity-floor-table.csv");
    let (lines, column) = table_rows(&fits);
    let mut stiff = lines.clone();
    stiff[2][column("kd")] = "1.5".into();
    write_rows(&fits, &stiff);
    let partial = pbdfit(&["table", f, "--out", o, "--partial"]);
    let e = stderr(&partial);
    assert!(partial.status.success(), "{e}");
    assert!(e.contains("removed 1 row(s) that cannot be resumed") && e.contains("status ok with kd `1.5`"), "{e}");
    let rows = common::csv_rows(&out.join("table.csv"));
    assert!(rows.iter().all(|r| r["status"] != "ok" || r["kd"].parse::<f64>().unwrap() <= 1.0), "{rows:?}");
    assert_eq!(rows.iter().filter(|r| r["status"] == "missing").count(), 1);
    let rebuilt = pbdfit(&["table", f, "--out", o]);
    assert!(rebuilt.status.success(), "{}", stderr(&rebuilt));
    assert!(stdout(&rebuilt).contains("1 fitted now, 3 resumed"), "{}", stdout(&rebuilt));
    assert_eq!(std::fs::read(out.join("table.csv")).unwrap(), table);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.vtu` full field on gravity-wall's body: the 4 points of one tetrahedron inside it, with a
/// displacement and the given `sigma` values (space-separated; `None`: no sigma array).
fn field(dir: &Path, name: &str, sigma: Option<&str>) -> PathBuf {
    let sigma = sigma.map_or(String::new(), |s| {
        format!(
            "<DataArray type=\"Float64\" Name=\"sigma\" NumberOfComponents=\"1\" format=\"ascii\">{s}</DataArray>\n"
        )
    });
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n\
         <UnstructuredGrid>\n<Piece NumberOfPoints=\"4\" NumberOfCells=\"1\">\n<PointData>\n\
         <DataArray type=\"Float64\" Name=\"displacement\" NumberOfComponents=\"3\" format=\"ascii\">\
         0 -1e-3 0 0 -2e-3 0 0 -1.5e-3 0 0 -1.2e-3 0</DataArray>\n{sigma}</PointData>\n<Points>\n\
         <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\
         0.5 0.5 0.5 0.9 0.5 0.5 0.5 0.9 0.5 0.5 0.5 0.9</DataArray>\n</Points>\n<Cells>\n\
         <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">0 1 2 3</DataArray>\n\
         <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">4</DataArray>\n\
         <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">10</DataArray>\n</Cells>\n</Piece>\n\
         </UnstructuredGrid>\n</VTKFile>\n"
    );
    let path = dir.join(name);
    std::fs::write(&path, xml).unwrap();
    path
}

/// A full-field `.vtu` whose `sigma` array had the wrong length was dropped without a word, and the
/// fit switched from chi-square to relative weighting. Refused, naming the array and the count it needs.
#[test]
fn a_sigma_array_of_the_wrong_length_is_refused_not_dropped() {
    let dir = scratch("d16");
    let short = field(&dir, "short.vtu", Some("1e-4 1e-4 1e-4"));
    assert_refused(
        &["fit", "--scene", "gravity-wall", "--n", "2", "--measured", short.to_str().unwrap()],
        &["short.vtu", "point data `sigma`", "4 points (4 values)"],
    );
    let ok = field(&dir, "ok.vtu", Some("1e-4 1e-4 1e-4 1e-4"));
    let fit =
        json(&pbdfit(&["fit", "--scene", "gravity-wall", "--n", "2", "--measured", ok.to_str().unwrap(), "--json"]));
    assert!(fit["reference"].as_str().unwrap().contains("chi-square"), "{}", fit["reference"]);
}

/// A unit cube held at y = 0 under gravity with the given `[[obstacle]]` text, written to `dir/name`.
fn held_block(dir: &Path, name: &str, obstacle: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "name = \"{}\"\n[body]\nshape = \"unit-cube\"\nn = 1\n[[held]]\nplane = \"y = 0\"\n[load]\n\
             gravity = [0.0, -9.81, 0.0]\n[material]\ndensity = 1.0\nmass_model = \"lumped\"\n{obstacle}",
            name.trim_end_matches(".toml")
        ),
    )
    .unwrap();
    path
}

/// Any obstacle switched off the nonlinear FEM's refusals: neo-Hookean at E = 1e-3 with a sphere that
/// never touches returned exit 0 and a 532 m sag through the held base (the block alone is refused), and
/// `fit` fitted to it. Now refused alike, through `fem` and `fit`.
#[test]
fn an_obstacle_that_never_touches_changes_no_refusal() {
    let dir = scratch("d7");
    let alone = held_block(&dir, "alone.toml", "");
    let far = held_block(
        &dir,
        "far.toml",
        "[[obstacle]]\nshape = \"sphere\"\ncenter = [0.5, 50.02, 0.5]\nradius = 4.0\ndisplacement = [0.0, -0.12, 0.0]\n",
    );
    for scene in [&alone, &far] {
        let s = scene.to_str().unwrap();
        let soft = ["--n", "2", "--material", "neo-hookean", "--young", "1e-3"];
        let mut fem = vec!["fem", "--scene", s];
        fem.extend(soft);
        assert_input_error(&pbdfit(&fem), &["inverted", "load factor"]);
        let mut fit = vec!["fit", "--scene", s];
        fit.extend(soft);
        assert_input_error(&pbdfit(&fit), &["inverted"]);
    }
}

/// An obstacle whose displacement ended past the held vertices was not checked: a plane moved
/// through the held face gave exit 0 with every tetrahedron inverted, an indenter moved 5 m swallowed the
/// block. Refused, naming the obstacle and the held vertex inside it.
#[test]
fn an_obstacle_may_not_end_with_a_held_vertex_inside_it() {
    let dir = scratch("d8");
    let plane = held_block(
        &dir,
        "plane.toml",
        "[[obstacle]]\nshape = \"plane\"\npoint = [0.0, 1.5, 0.0]\nnormal = [0.0, -1.0, 0.0]\ndisplacement = [0.0, -2.0, 0.0]\n",
    );
    let swallow = held_block(
        &dir,
        "swallow.toml",
        "[[obstacle]]\nshape = \"sphere\"\ncenter = [0.5, 5.02, 0.5]\nradius = 4.0\ndisplacement = [0.0, -5.0, 0.0]\n",
    );
    for scene in [&plane, &swallow] {
        for extra in [&["fem"][..], &["simulate", "--kd", "0.5", "--kv", "0.5"], &["fit"]] {
            let mut args = vec![extra[0], "--scene", scene.to_str().unwrap(), "--n", "2"];
            args.extend(&extra[1..]);
            assert_refused(&args, &["obstacle[0]", "with held vertex", "shorten the obstacle's `displacement`"]);
        }
    }
}

/// Markers at every moving vertex of gravity-wall (N = 2) with the linear FEM's displacements at E = 3e3
/// Pa and `poisson`, each component with Gaussian noise of `noise` times the largest displacement
/// (seeded by `seed`: the same file every run).
fn fem_markers(dir: &Path, name: &str, poisson: &str, noise: f64, seed: u64) -> PathBuf {
    let fem = json(&pbdfit(&[
        "fem",
        "--scene",
        "gravity-wall",
        "--n",
        "2",
        "--young",
        "3e3",
        "--poisson",
        poisson,
        "--json",
    ]));
    let u = displacements(&fem);
    let x: Vec<[f64; 3]> =
        fem["vertices"].as_array().unwrap().iter().map(|v| [0, 1, 2].map(|k| v[k].as_f64().unwrap())).collect();
    let largest = u.iter().map(|d| (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()).fold(0.0, f64::max);
    let mut state = seed;
    let mut uniform = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let mut normal = || (-2.0 * uniform().ln()).sqrt() * (2.0 * std::f64::consts::PI * uniform()).cos();
    let mut csv = String::from("x,y,z,ux,uy,uz\n");
    for i in (0..x.len()).filter(|&i| u[i].iter().any(|c| *c != 0.0)) {
        let d = u[i].map(|c| c + noise * largest * normal());
        csv += &format!("{},{},{},{},{},{}\n", x[i][0], x[i][1], x[i][2], d[0], d[1], d[2]);
    }
    let path = dir.join(name);
    std::fs::write(&path, csv).unwrap();
    path
}

/// `identify` with nu past its search bound (markers of nu = 0.4995): the difference step became 0,
/// the covariance NaN (JSON null) and the intervals zero-width. The bound is named and nu's interval is
/// one-sided up to it, of positive width; the covariance is finite.
#[test]
fn nu_on_the_search_bound_is_named_with_a_one_sided_interval() {
    let dir = scratch("d5");
    let m = fem_markers(&dir, "nu4995.csv", "0.4995", 0.0, 1);
    let args = ["identify", "--scene", "gravity-wall", "--n", "2", "--measured", m.to_str().unwrap()];
    let id = json(&pbdfit(&[&args[..], &["--json"]].concat()));
    assert_eq!(id["poisson_at_bound"], 0.499);
    let nu: Vec<f64> = id["poisson_interval_95"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(nu[0] < nu[1] && nu[1] == 0.499, "{nu:?}");
    let e: Vec<f64> = id["young_interval_95"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(e[0] < e[1], "{e:?}");
    assert!(
        id["covariance_ln_young_poisson"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap())
            .all(|c| c.is_f64())
    );
    let text = stdout(&pbdfit(&args));
    assert!(text.contains("one-sided") && text.contains("bound 0.499"), "{text}");
}

/// Markers whose noise is as large as their signal printed E "0 to inf" and nu in [-16.9, 14.9].
/// Over a few seeds of such noise, every interval printed is finite and of positive width or the
/// parameter is said to be not identifiable (JSON null); such noise leaves at least one undetermined.
#[test]
fn markers_as_noisy_as_their_signal_are_said_not_to_identify_the_material() {
    let dir = scratch("d6");
    let mut undetermined = 0;
    for seed in 1..=4 {
        let m = fem_markers(&dir, &format!("noisy-{seed}.csv"), "0.3", 1.0, seed);
        let args = ["identify", "--scene", "gravity-wall", "--n", "2", "--measured", m.to_str().unwrap()];
        let o = pbdfit(&args);
        if o.status.code() == Some(2) && stderr(&o).contains("no positive Young's modulus explains these markers") {
            // Noise that turns the markers against the load: no E at all (tested below).
            continue;
        }
        let text = stdout(&o);
        assert!(o.status.success() && !text.contains("inf") && !text.contains("NaN"), "{text}{}", stderr(&o));
        let id = json(&pbdfit(&[&args[..], &["--json"]].concat()));
        for p in ["young", "poisson"] {
            let named = id["undetermined"].as_array().unwrap().iter().any(|u| u == p);
            let interval = &id[format!("{p}_interval_95")];
            if named {
                undetermined += 1;
                assert!(interval.is_null() && text.contains("not identifiable from these markers"), "{id}");
            } else {
                let i: Vec<f64> = interval.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
                assert!(i[0].is_finite() && i[1].is_finite() && i[0] < i[1], "{p}: {i:?}");
            }
        }
    }
    assert!(undetermined > 0, "noise as large as the signal determined E and nu in every seed");
}

/// Silent default: `simulate --model xpbd --kd 0.3` ran with compliance 0 and ignored `--kd`. A parameter
/// flag the model lacks is refused naming its parameters; the flags it has still work, with their defaults.
#[test]
fn silent_default_simulate_refuses_a_flag_the_model_lacks() {
    let base = ["simulate", "--scene", "gravity-wall", "--n", "1"];
    let o = common::pbdfit(&[&base[..], &["--model", "xpbd", "--kd", "0.3"]].concat());
    common::assert_input_error(&o, &["--kd", "model xpbd has no parameter `kd`", "alpha_d, alpha_v"]);
    let o = common::pbdfit(&[&base[..], &["--model", "pbd", "--compliance-distance", "1e-4"]].concat());
    common::assert_input_error(&o, &["--compliance-distance", "model pbd has no parameter `alpha_d`"]);
    let o = common::pbdfit(&[&base[..], &["--model", "xpbd", "--compliance-distance", "1e-4"]].concat());
    assert!(o.status.success(), "{}", common::stderr(&o));
    let o = common::pbdfit(&[&base[..], &["--kd", "0.3"]].concat());
    assert!(o.status.success(), "{}", common::stderr(&o));
}

/// `identify` exited 1 ("internal error: no start gives positive E") for markers that move against
/// the load: an input problem, exit 2, naming what to check.
#[test]
fn markers_against_the_load_are_the_input_s_problem() {
    let dir = scratch("d13");
    let m = fem_markers(&dir, "with.csv", "0.3", 0.0, 1);
    let text = std::fs::read_to_string(&m).unwrap();
    let mut against = String::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            against += line;
        } else {
            let v: Vec<f64> = line.split(',').map(|c| c.parse().unwrap()).collect();
            against += &format!("{},{},{},{},{},{}", v[0], v[1], v[2], -v[3], -v[4], -v[5]);
        }
        against += "\n";
    }
    let path = dir.join("against.csv");
    std::fs::write(&path, against).unwrap();
    let o = pbdfit(&["identify", "--scene", "gravity-wall", "--n", "2", "--measured", path.to_str().unwrap()]);
    assert_input_error(&o, &["no positive Young's modulus explains these markers", "signs"]);
    assert!(!stderr(&o).contains("internal"), "{}", stderr(&o));
}

/// `lookup --table DIR` on an empty folder (or one whose build is still running, which has no
/// table files yet) exited 1 as if the machine had failed. Exit 2, saying what the folder lacks and how a
/// part-built table gets its files.
#[test]
fn a_folder_without_table_files_is_not_a_table() {
    let dir = scratch("d14");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let args = ["--young", "150", "--poisson", "0.1", "--dt", "0.01", "--nit", "1", "--n", "1"];
    let o = pbdfit(&[&["lookup", "--table", empty.to_str().unwrap()][..], &args[..]].concat());
    assert_input_error(&o, &["is not a table folder", "no table.csv", "--partial"]);
    // With table.csv but no table.json (a hand-copied half): the missing file is named.
    std::fs::write(empty.join("table.csv"), "E\n").unwrap();
    let o = pbdfit(&[&["lookup", "--table", empty.to_str().unwrap()][..], &args[..]].concat());
    assert_input_error(&o, &["is not a table folder", "no table.json"]);
}

/// Mass-spring on `indentation` at N = 2 had no rest state at any stiffness, dt or damping, and
/// advised implicit-euler (refused with obstacles): the sphere's 0.1 m depth became one Verlet step's
/// velocity. Vertices that start inside an obstacle are now put on its surface before the first step;
/// the Verlet run settles where the frictionless static equilibrium (Newton) is.
#[test]
fn mass_spring_indentation_settles_where_the_equilibrium_is() {
    let scene = ["--scene", "indentation", "--n", "2", "--model", "mass-spring", "--ks", "1000", "--json"];
    let verlet = ["--integrator", "verlet", "--dt", "0.0001", "--damping", "5"];
    let run = json(&pbdfit(&[&["simulate"][..], &scene[..], &verlet[..]].concat()));
    assert_eq!(run["settled"], true, "{run}");
    let equilibrium = json(&pbdfit(&[&["simulate"][..], &scene[..]].concat()));
    let (a, b) = (displacements(&run), displacements(&equilibrium));
    let scale = b.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let diff = a.iter().zip(&b).flat_map(|(p, q)| p.iter().zip(q).map(|(x, y)| (x - y).abs())).fold(0.0, f64::max);
    // The sphere's lowest point ends 0.1 m deep over the top face's centre vertex.
    assert!((scale - 0.1).abs() < 1e-9, "{scale}");
    assert!(diff < 1e-8 * scale, "verlet and the equilibrium differ by {:e}", diff / scale);
    // A run that does diverge (dt past the stability limit) advises what can help with obstacles.
    let o = pbdfit(&[&["simulate"][..], &scene[..], &["--integrator", "verlet", "--dt", "0.05"][..]].concat());
    assert_input_error(&o, &["diverged", "smaller dt or more damping", "verlet only"]);
    assert!(!stderr(&o).contains("or implicit-euler"), "{}", stderr(&o));
}

/// Inputs used silently: a `--start` outside the box (kd = 2 while kd = inf was refused), a
/// parameter bounded or started twice (the last won), `identify --dt -1`, and an FEM option
/// (`--material stvk`) on a fit whose reference is measured markers. Each is refused, naming it.
#[test]
fn inputs_that_were_used_silently_are_refused() {
    let fit = ["fit", "--scene", "gravity-floor", "--n", "1"];
    fn with<'a>(fit: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [fit, extra].concat()
    }
    assert_refused(&with(&fit, &["--start", "kd=2,kv=0.5"]), &["--start", "kd = 2 is outside the box [0, 1]"]);
    assert_refused(&with(&fit, &["--box", "kd=0:0.5", "--box", "kd=0:1"]), &["kd is bounded twice"]);
    assert_refused(&with(&fit, &["--start", "kd=0.2,kd=0.5"]), &["--start", "kd is given twice"]);
    // Inside the box, a start is taken.
    let ok = json(&pbdfit(&with(&fit, &["--start", "kd=0.2,kv=0.5", "--json"])));
    assert_eq!(ok["status"], "converged", "{ok}");
    let dir = scratch("d18");
    let m = wall_markers(&dir, "m.csv", None);
    let m = m.to_str().unwrap();
    let wall = ["--scene", "gravity-wall", "--n", "2", "--measured", m];
    assert_refused(&[&["identify"][..], &wall[..], &["--dt=-1"][..]].concat(), &["dt", "finite number > 0"]);
    assert_refused(
        &[&["fit"][..], &wall[..], &["--material", "stvk"][..]].concat(),
        &["--material sets the FEM reference", "measured markers"],
    );
    assert_refused(&[&["fit"][..], &wall[..], &["--dynamic"][..]].concat(), &["--dynamic sets the FEM reference"]);
}

/// `--max-seconds 1e-9` was reported as the model's failure ("no rest state with model pbd ... within
/// 3 projection sweeps"). The time limit is named, with the remedy; both searches.
#[test]
fn a_time_limit_that_leaves_no_rest_state_is_named() {
    for search in ["gradient", "pattern"] {
        let o = pbdfit(&["fit", "--scene", "gravity-floor", "--n", "2", "--search", search, "--max-seconds", "1e-9"]);
        assert_input_error(&o, &["time limit", "before any grid point reached its rest state", "longer limit"]);
        assert!(!stderr(&o).contains("within 3 projection sweeps"), "{}", stderr(&o));
    }
}

/// The contact sensitivity refusal recommended the pattern search, though the gradient fit works on
/// contact scenes (it differences rest states there). The refusal says so, and the fit does work.
#[test]
fn the_contact_sensitivity_refusal_points_to_what_works() {
    let o = pbdfit(&["simulate", "--scene", "indentation", "--n", "1", "--sensitivity"]);
    assert_input_error(&o, &["sensitivity is not solved with contact", "`pbdfit fit` works as it is"]);
    assert!(!stderr(&o).contains("--search pattern"), "{}", stderr(&o));
    let fit = json(&pbdfit(&["fit", "--scene", "indentation", "--n", "1", "--search", "gradient", "--json"]));
    assert!(fit["error"].as_f64().is_some_and(f64::is_finite), "{fit}");
}

/// `simulate --max-sweeps` bounds a rest state's projection sweeps, so a slow point ends the same way on
/// every machine (a script's wall-clock timeout did not): a budget the point needs more than is refused
/// (exit 2) saying the sweeps, the default budget converges, and a budget of 0 is refused naming the option.
#[test]
fn a_sweep_budget_ends_a_rest_state_the_same_way_everywhere() {
    let args = ["simulate", "--scene", "gravity-floor", "--n", "2", "--kd", "0.3", "--kv", "0.4", "--json"];
    let rested = pbdfit(&args);
    assert_eq!(rested.status.code(), Some(0), "{}", stderr(&rested));
    let short = pbdfit(&[&args[..], &["--max-sweeps", "3"]].concat());
    assert_input_error(&short, &["projection sweeps"]);
    assert_refused(&[&args[..], &["--max-sweeps", "0"]].concat(), &["--max-sweeps", "at least 1"]);
}
