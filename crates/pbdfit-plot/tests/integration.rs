//! End-to-end: a synthetic results folder (every scene and experiment, a coarse ν grid, a few failed
//! fits) rendered into all 39 thesis figures and the report.
//!
//! Set `PBDFIT_PLOT_KEEP=<dir>` to keep the rendered synthetic set there for looking at it.

use std::path::{Path, PathBuf};

use pbdfit_fit::{FitRecord, FitStatus, write_records};
use pbdfit_plot::{
    Experiment, FigureOutcome, ReportContext, Scene, ScenePicture, auto_scale, csv_path, figure_size, render_study,
    thesis_figures, write_report,
};

/// A fresh folder under the system temp dir, unique per test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdfit-plot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const NUS: [f64; 8] = [0.0, 0.07, 0.14, 0.21, 0.28, 0.35, 0.42, 0.49];

fn values(e: Experiment) -> Vec<Option<f64>> {
    match e {
        Experiment::Base => vec![None],
        _ => e.table_values().iter().map(|v| Some(*v)).collect(),
    }
}

/// A plausible, smooth synthetic fit: errors rise towards ν = 0.5, k_d rises, k_v falls, some fits sit on
/// the bound 1, and the E experiment spans decades.
fn record(scene: Scene, e: Experiment, value: Option<f64>, i: usize, nu: f64) -> FitRecord {
    let s = scene as usize as f64;
    let v = i as f64;
    let mut error = (0.01 + 0.002 * s) * (1.0 + 0.4 * v) * (1.0 + 30.0 * nu.powi(3));
    if e == Experiment::Young {
        error = 1e-3 * 10f64.powf(v) * (1.0 + 10.0 * nu.powi(2));
        error = error.min(0.9);
    }
    let kd = (0.2 + 0.15 * v + 1.2 * nu).min(1.0);
    let kv = (0.6 - 0.8 * nu + 0.05 * v).max(0.0);
    let (young, dt, n, nit) = match (e, value) {
        (Experiment::Dt, Some(x)) => (1e3, x, 1, 1),
        (Experiment::N, Some(x)) => (1e3, 0.01, x as usize, 1),
        (Experiment::Nit, Some(x)) => (1e3, 0.01, 1, x as usize),
        (Experiment::Young, Some(x)) => (x, 0.01, 1, 1),
        _ => (1e3, 0.01, 1, 1),
    };
    let scene_errors = if scene.is_compound() {
        // Parts whose norm is the total: weights 1 : 2 : 0.5.
        let w = [1.0, 2.0 + nu, 0.5];
        let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        FitRecord::format_part_errors(&[
            ("gravity-floor".into(), error * w[0] / norm),
            ("gravity-wall".into(), error * w[1] / norm),
            ("gravity-ceiling".into(), error * w[2] / norm),
        ])
    } else {
        String::new()
    };
    FitRecord {
        scene: scene.file_stem().into(),
        experiment: e.file_stem().into(),
        value,
        young,
        poisson: nu,
        dt,
        n,
        nit,
        model: "pbd".into(),
        mass_model: "lumped".into(),
        kd,
        kv,
        error,
        scene_errors,
        evaluations: 480,
        failed_evaluations: 21,
        seconds: 0.1,
        status: FitStatus::Ok,
        message: String::new(),
    }
}

/// Writes every `<scene>-<experiment>.csv` with a couple of failed rows.
fn write_synthetic_results(dir: &Path) {
    for scene in Scene::ALL {
        for e in Experiment::ALL {
            let mut rows = Vec::new();
            for (i, value) in values(e).into_iter().enumerate() {
                for nu in NUS {
                    let mut r = record(scene, e, value, i, nu);
                    let fail = (scene == Scene::GravityFloor && e == Experiment::Dt && i == 3 && nu == 0.28)
                        || (scene == Scene::GravityWall && e == Experiment::Base && nu == 0.49)
                        || (scene == Scene::Gravity && e == Experiment::Young && i == 2 && nu == 0.0);
                    if fail {
                        r.status = FitStatus::Failed;
                        r.kd = f64::NAN;
                        r.kv = f64::NAN;
                        r.error = f64::INFINITY;
                        r.scene_errors = String::new();
                        r.message = "every evaluation diverged".into();
                    }
                    rows.push(r);
                }
            }
            write_records(&csv_path(dir, scene, e), &rows).unwrap();
        }
    }
}

/// A 2 x 2 x 2 grid cube with its grid edges, held on one face, with a made-up sag.
fn picture(scene: Scene) -> ScenePicture {
    let n = 2;
    let idx = |i: usize, j: usize, k: usize| i + (n + 1) * (j + (n + 1) * k);
    let mut initial = Vec::new();
    for k in 0..=n {
        for j in 0..=n {
            for i in 0..=n {
                initial.push([i as f64 / n as f64, j as f64 / n as f64, k as f64 / n as f64]);
            }
        }
    }
    let mut edges = Vec::new();
    for k in 0..=n {
        for j in 0..=n {
            for i in 0..=n {
                if i < n {
                    edges.push([idx(i, j, k), idx(i + 1, j, k)]);
                }
                if j < n {
                    edges.push([idx(i, j, k), idx(i, j + 1, k)]);
                }
                if k < n {
                    edges.push([idx(i, j, k), idx(i, j, k + 1)]);
                }
                if i < n && j < n {
                    edges.push([idx(i, j, k), idx(i + 1, j + 1, k)]);
                }
            }
        }
    }
    let (held, rest): (Vec<bool>, Vec<[f64; 3]>) = initial
        .iter()
        .map(|p: &[f64; 3]| match scene {
            Scene::GravityFloor => (p[1] == 0.0, [p[0], p[1] - 4.6e-3 * p[1], p[2]]),
            Scene::GravityWall => (p[2] == 0.0, [p[0], p[1] - 1.8e-2 * p[2] * p[2], p[2] - 2e-3 * p[2] * (p[1] - 0.5)]),
            _ => (p[1] == 1.0, [p[0], p[1] - 5e-3 * (1.0 - p[1]), p[2]]),
        })
        .unzip();
    let scale = auto_scale(&initial, &rest);
    ScenePicture {
        scene,
        title: format!("{}: initial and rest state (FEM, E = 1e3 Pa, ν = 0.3)", scene.title()),
        initial,
        rest,
        edges,
        held,
        scale,
    }
}

fn pictures() -> Vec<ScenePicture> {
    [Scene::GravityFloor, Scene::GravityWall, Scene::GravityCeiling].into_iter().map(picture).collect()
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    (info.width, info.height)
}

#[test]
fn every_thesis_figure_is_drawn_as_png_and_svg_and_named_in_the_report() {
    let root = match std::env::var_os("PBDFIT_PLOT_KEEP") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            std::fs::create_dir_all(&dir).unwrap();
            dir
        }
        None => temp_dir("all"),
    };
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_synthetic_results(&results);
    let out = root.join("figures");
    let figures = render_study(&results, &out, &pictures()).unwrap();
    assert_eq!(figures.len(), 39);
    for (f, expected) in figures.iter().zip(thesis_figures()) {
        assert_eq!(f.figure, expected);
        let FigureOutcome::Drawn(files) = &f.outcome else { panic!("{} missing: {:?}", f.label(), f.outcome) };
        assert_eq!(png_size(&files.png), figure_size(&f.figure), "{}", files.png.display());
        let svg = std::fs::read_to_string(&files.svg).unwrap();
        let (w, h) = figure_size(&f.figure);
        assert!(
            svg.contains("<svg") && svg.contains(&format!("width=\"{w}\"")) && svg.contains(&format!("height=\"{h}\""))
        );
        assert!((2..=4).contains(&f.sentences.len()), "{}: {:?}", f.label(), f.sentences);
    }
    // The failed rows are counted, not drawn.
    let dt_k = &figures[3];
    assert_eq!(dt_k.label(), "4.4");
    assert!(dt_k.sentences.iter().any(|s| s.contains("1 of 32 fit failed")), "{:?}", dt_k.sentences);
    let report = out.join("README.md");
    write_report(&figures, &report, &ReportContext::default()).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    for n in 1..=39 {
        assert!(text.contains(&format!("### Figure 4.{n}\n")), "4.{n} not in the report");
    }
    assert!(text.contains("All 39 figures are drawn."));
    assert!(text.contains("](fig-4-01-gravity-floor-scene.png)"), "links are relative to the report");
    assert!(!text.contains("Missing:"));
    if std::env::var_os("PBDFIT_PLOT_KEEP").is_none() {
        std::fs::remove_dir_all(&root).unwrap();
    }
}

#[test]
fn rendering_twice_gives_byte_identical_files() {
    let root = temp_dir("twice");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_synthetic_results(&results);
    let a = render_study(&results, &root.join("a"), &pictures()).unwrap();
    let b = render_study(&results, &root.join("b"), &pictures()).unwrap();
    for (fa, fb) in a.iter().zip(&b) {
        assert_eq!(fa.sentences, fb.sentences);
        let (fa, fb) = (fa.files().unwrap(), fb.files().unwrap());
        for (pa, pb) in [(&fa.png, &fb.png), (&fa.svg, &fb.svg)] {
            assert!(std::fs::read(pa).unwrap() == std::fs::read(pb).unwrap(), "{} differs", pa.display());
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn missing_and_all_failed_results_are_listed_not_fatal() {
    let root = temp_dir("missing");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_synthetic_results(&results);
    std::fs::remove_file(csv_path(&results, Scene::GravityWall, Experiment::Nit)).unwrap();
    std::fs::write(csv_path(&results, Scene::GravityCeiling, Experiment::N), "not,a\nvalid,file\n").unwrap();
    let failed: Vec<FitRecord> = NUS
        .iter()
        .map(|&nu| FitRecord { status: FitStatus::Failed, ..record(Scene::Gravity, Experiment::Base, None, 0, nu) })
        .collect();
    write_records(&csv_path(&results, Scene::Gravity, Experiment::Base), &failed).unwrap();
    let out = root.join("figures");
    let figures = render_study(&results, &out, &[]).unwrap();
    let missing: Vec<String> = figures.iter().filter(|f| f.files().is_none()).map(|f| f.label()).collect();
    assert_eq!(missing, ["4.1", "4.11", "4.17", "4.18", "4.21", "4.25", "4.26", "4.31"]);
    let FigureOutcome::Missing(why) = &figures[16].outcome else { unreachable!() };
    assert!(why.contains("gravity-wall-nit.csv"), "{why}");
    let FigureOutcome::Missing(why) = &figures[24].outcome else { unreachable!() };
    assert!(why.contains("gravity-ceiling-n.csv"), "{why}");
    let report = root.join("README.md");
    write_report(&figures, &report, &ReportContext::default()).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("31 of 39 figures are drawn. Missing: 4.1, 4.11, 4.17, 4.18, 4.21, 4.25, 4.26, 4.31"));
    assert!(text.contains("](figures/fig-4-02-gravity-floor-base.png)"));
    assert_eq!(text.matches("**Missing:**").count(), 8);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_results_folder_that_does_not_exist_is_an_error_naming_it() {
    let e = render_study(Path::new("/nonexistent/pbdfit-results"), &temp_dir("none"), &[]).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/pbdfit-results"), "{e}");
}
