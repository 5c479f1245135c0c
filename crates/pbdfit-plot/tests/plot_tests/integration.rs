//! End-to-end: synthetic results folders (a thesis-like study with every scene and experiment, and an
//! XPBD study with log-scale compliances; coarse ν grids, a few failed fits) rendered into figures and
//! reports.
//!
//! Set `PBDFIT_PLOT_KEEP=<dir>` to keep the rendered synthetic sets there for looking at them.

use std::path::{Path, PathBuf};

use pbdfit_plot::{
    FigureContent, FigureOutcome, Naming, ReportContext, ScenePicture, auto_scale, figure_size, render_study,
    thesis_figures, write_report,
};
use pbdfit_results::{
    BaseSettings, ExperimentLayout, FitRecord, FitStatus, ParameterLayout, Scale, SceneLayout, StudyLayout,
    StudySummary, write_records, write_summary,
};

/// A fresh folder under the system temp dir (or under `PBDFIT_PLOT_KEEP`), unique per test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = match std::env::var_os("PBDFIT_PLOT_KEEP") {
        Some(keep) => PathBuf::from(keep).join(name),
        None => std::env::temp_dir().join(format!("pbdfit-plot-{name}-{}", std::process::id())),
    };
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cleanup(dir: &Path) {
    if std::env::var_os("PBDFIT_PLOT_KEEP").is_none() {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

const NUS: [f64; 8] = [0.0, 0.07, 0.14, 0.21, 0.28, 0.35, 0.42, 0.49];
const PARTS: [&str; 3] = ["gravity-floor", "gravity-wall", "gravity-ceiling"];

fn experiment(name: &str, setting: Option<&str>, values: &[f64]) -> ExperimentLayout {
    ExperimentLayout { name: name.into(), setting: setting.map(String::from), values: values.to_vec() }
}

fn layout(
    name: &str,
    model: &str,
    parameters: Vec<ParameterLayout>,
    experiments: Vec<ExperimentLayout>,
) -> StudyLayout {
    let mut scenes: Vec<SceneLayout> =
        PARTS.iter().map(|p| SceneLayout { name: p.to_string(), parts: vec![] }).collect();
    scenes.push(SceneLayout { name: "gravity".into(), parts: PARTS.iter().map(|p| p.to_string()).collect() });
    StudyLayout {
        name: name.into(),
        description: format!("synthetic {name} study"),
        model: model.into(),
        parameters,
        reference: "linear static FEM".into(),
        precision: "f64".into(),
        mass_model: None,
        scenes,
        experiments,
        base: BaseSettings { dt: 0.01, n: 1, nit: 1, young: 1e3, thickness: None },
        poisson: NUS.to_vec(),
        grid: 21,
        min_step: 1e-4,
        search: None,
        neighbour_starts: false,
    }
}

/// The thesis study's layout (fits/thesis.toml).
fn thesis_layout() -> StudyLayout {
    let k = |name: &str| ParameterLayout {
        name: name.into(),
        unit: "1".into(),
        scale: Scale::Linear,
        lower: 0.0,
        upper: 1.0,
    };
    layout(
        "thesis",
        "pbd",
        vec![k("kd"), k("kv")],
        vec![
            experiment("base", None, &[]),
            experiment("dt", Some("dt"), &[0.01, 0.005, 0.002, 0.001]),
            experiment("n", Some("n"), &[1.0, 2.0, 3.0, 4.0]),
            experiment("nit", Some("nit"), &[1.0, 2.0, 4.0, 8.0]),
            experiment("young", Some("young"), &[1e3, 1e4, 1e5, 1e6]),
        ],
    )
}

/// An XPBD study: compliances on a log scale, two experiments.
fn xpbd_layout() -> StudyLayout {
    let a = |name: &str, unit: &str| ParameterLayout {
        name: name.into(),
        unit: unit.into(),
        scale: Scale::Log10,
        lower: 1e-12,
        upper: 1e2,
    };
    layout(
        "xpbd",
        "xpbd",
        vec![a("alpha_d", "m/N"), a("alpha_v", "m^6/J")],
        vec![
            experiment("reference", None, &[]),
            experiment("dt", Some("dt"), &[0.01, 0.001]),
            experiment("young", Some("young"), &[1e3, 1e5]),
        ],
    )
}

/// A plausible, smooth synthetic fit. PBD: errors rise towards ν = 0.5, kd rises, kv falls, the E
/// experiment spans decades with kd = 1 (at the bound) for every variant, so its four kd curves coincide.
/// XPBD: compliances from 1e-9 to 1e-2.
fn record(layout: &StudyLayout, scene: &str, e: &ExperimentLayout, value: Option<f64>, i: usize, nu: f64) -> FitRecord {
    let s = PARTS.iter().position(|p| *p == scene).unwrap_or(3) as f64;
    let v = i as f64;
    let young_experiment = e.setting.as_deref() == Some("young");
    let mut error = (0.01 + 0.002 * s) * (1.0 + 0.4 * v) * (1.0 + 30.0 * nu.powi(3));
    if young_experiment {
        error = (1e-3 * 10f64.powf(v) * (1.0 + 10.0 * nu.powi(2))).min(0.9);
    }
    let parameters: Vec<(String, f64)> = if layout.model == "xpbd" {
        vec![
            ("alpha_d".into(), 1e-9 * 10f64.powf(3.0 * v + 4.0 * nu)),
            ("alpha_v".into(), 1e-2 * 10f64.powf(-2.0 * v - 6.0 * nu)),
        ]
    } else {
        let kd = if young_experiment { 1.0 } else { (0.2 + 0.15 * v + 1.2 * nu).min(1.0) };
        vec![("kd".into(), kd), ("kv".into(), (0.6 - 0.8 * nu + 0.05 * v).max(0.0))]
    };
    let at_bound = parameters
        .iter()
        .filter(|(n, x)| layout.parameter(n).is_some_and(|p| *x == p.lower || *x == p.upper))
        .map(|(n, _)| n.clone())
        .collect();
    let (young, dt, n, nit) = match (e.setting.as_deref(), value) {
        (Some("dt"), Some(x)) => (1e3, x, 1, 1),
        (Some("n"), Some(x)) => (1e3, 0.01, x as usize, 1),
        (Some("nit"), Some(x)) => (1e3, 0.01, 1, x as usize),
        (Some("young"), Some(x)) => (x, 0.01, 1, 1),
        _ => (1e3, 0.01, 1, 1),
    };
    let scene_errors = if scene == "gravity" {
        // Parts whose norm is the total: weights 1 : 2 : 0.02, so the ceiling's share is tiny.
        let w = [1.0, 2.0 + nu, 0.02];
        let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        PARTS.iter().zip(w).map(|(p, wi)| (p.to_string(), error * wi / norm)).collect()
    } else {
        Vec::new()
    };
    FitRecord {
        scene: scene.into(),
        experiment: e.name.clone(),
        value,
        young,
        poisson: nu,
        dt,
        n,
        nit,
        model: layout.model.clone(),
        mass_model: "lumped".into(),
        parameters,
        error,
        scene_errors,
        evaluations: 480,
        failed_evaluations: 21,
        at_bound,
        condition: None,
        hessian: Vec::new(),
        ranges: Vec::new(),
        seconds: 0.1,
        status: FitStatus::Ok,
        message: String::new(),
        reference: "linear static".into(),
        search: None,
        thickness: None,
    }
}

fn failed(mut r: FitRecord) -> FitRecord {
    r.status = FitStatus::Failed;
    for p in &mut r.parameters {
        p.1 = f64::NAN;
    }
    r.error = f64::INFINITY;
    r.scene_errors.clear();
    r.at_bound.clear();
    r.message = "every evaluation diverged".into();
    r
}

fn csv(dir: &Path, scene: &str, experiment: &str) -> PathBuf {
    dir.join(format!("{scene}-{experiment}.csv"))
}

/// Writes summary.json and every `<scene>-<experiment>.csv` with a couple of failed rows.
fn write_synthetic_results(dir: &Path, layout: &StudyLayout) {
    let names: Vec<&str> = layout.parameters.iter().map(|p| p.name.as_str()).collect();
    let mut files = Vec::new();
    for scene in &layout.scenes {
        for e in &layout.experiments {
            let values: Vec<Option<f64>> =
                if e.setting.is_none() { vec![None] } else { e.values.iter().map(|v| Some(*v)).collect() };
            let mut rows = Vec::new();
            for (i, value) in values.into_iter().enumerate() {
                for nu in NUS {
                    let r = record(layout, &scene.name, e, value, i, nu);
                    let fail = (scene.name == "gravity-floor" && e.name == "dt" && i == 3 && nu == 0.28)
                        || (scene.name == "gravity-wall" && e.setting.is_none() && nu == 0.49)
                        || (scene.name == "gravity" && e.name == "young" && i == 2 && nu == 0.0);
                    rows.push(if fail { failed(r) } else { r });
                }
            }
            let path = csv(dir, &scene.name, &e.name);
            write_records(&path, &names, &rows).unwrap();
            files.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    let summary = StudySummary {
        layout: layout.clone(),
        pbdfit_version: "test".into(),
        run: pbdfit_results::RunCounts {
            fits: 0,
            computed: 0,
            resumed: 0,
            failed: 3,
            at_bound: 0,
            seconds: 0.0,
            threads: 1,
        },
        backend: "cpu".into(),
        files,
    };
    write_summary(dir, &summary).unwrap();
}

/// A 2 x 2 x 2 grid cube with its grid edges, held on one face, with a made-up sag.
fn picture(scene: &str) -> ScenePicture {
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
            "gravity-floor" => (p[1] == 0.0, [p[0], p[1] - 4.6e-3 * p[1], p[2]]),
            "gravity-wall" => (p[2] == 0.0, [p[0], p[1] - 1.8e-2 * p[2] * p[2], p[2] - 2e-3 * p[2] * (p[1] - 0.5)]),
            _ => (p[1] == 1.0, [p[0], p[1] - 5e-3 * (1.0 - p[1]), p[2]]),
        })
        .unzip();
    let scale = auto_scale(&initial, &rest);
    ScenePicture {
        scene: scene.to_string(),
        title: format!("{scene}: initial and rest state (FEM, E = 1e3 Pa, ν = 0.3)"),
        initial,
        rest,
        edges,
        held,
        scale,
    }
}

fn pictures() -> Vec<ScenePicture> {
    ["gravity-floor", "gravity-wall", "gravity-ceiling"].into_iter().map(picture).collect()
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
}

fn is_compound(scene: &str) -> bool {
    scene == "gravity"
}

#[test]
fn every_thesis_figure_is_drawn_as_png_and_svg_and_named_in_the_report() {
    let root = temp_dir("thesis");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_synthetic_results(&results, &thesis_layout());
    let out = root.join("figures");
    let study = render_study(&results, &out, Naming::Thesis, &pictures()).unwrap();
    assert_eq!(study.figures.len(), 39, "the thesis study has no figures beyond the 39");
    for (f, expected) in study.figures.iter().zip(thesis_figures()) {
        assert_eq!(f.thesis, Some(expected));
        assert_eq!(f.stem, expected.file_stem());
        let FigureOutcome::Drawn(files) = &f.outcome else { panic!("{} missing: {:?}", f.label(), f.outcome) };
        let size = figure_size(expected.content, is_compound(expected.scene), 2);
        assert_eq!(f.size, size);
        assert_eq!(png_size(&files.png), size, "{}", files.png.display());
        let svg = std::fs::read_to_string(&files.svg).unwrap();
        let (w, h) = size;
        assert!(
            svg.contains("<svg") && svg.contains(&format!("width=\"{w}\"")) && svg.contains(&format!("height=\"{h}\""))
        );
        assert!((2..=4).contains(&f.sentences.len()), "{}: {:?}", f.label(), f.sentences);
        assert!(f.caption.starts_with(&format!("Figure {}: ", expected.label())), "{}", f.caption);
    }
    // Sizes as before the layout-driven rewrite.
    assert_eq!(study.figures[3].size, (1000, 860));
    assert_eq!(study.figures[1].size, (1000, 1100));
    assert_eq!(study.figures[37].size, (1000, 1000));
    // Captions and sentences speak of the model's parameters.
    let dt_k = &study.figures[3];
    assert_eq!((dt_k.label().as_str(), dt_k.stem.as_str()), ("4.4", "fig-4-04-gravity-floor-dt-k"));
    assert!(dt_k.caption.contains("fitted kd and kv against ν (pbd)") && dt_k.caption.contains("overlap"));
    assert!(dt_k.sentences.iter().any(|s| s.contains("1 of 32 fit failed")), "{:?}", dt_k.sentences);
    assert!(dt_k.sentences[0].starts_with("Averaged over ν, kd goes from"), "{:?}", dt_k.sentences);
    // The E experiment's kd sits on the bound 1 in every fit (at_bound says so).
    let young_k = &study.figures[9];
    assert_eq!(young_k.label(), "4.10");
    assert!(young_k.sentences.iter().any(|s| s.contains("kd is at the bound 1 in 32 fits")), "{:?}", young_k.sentences);
    let report = out.join("README.md");
    write_report(&study, &report, &ReportContext::default()).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    for n in 1..=39 {
        assert!(text.contains(&format!("### Figure 4.{n}\n")), "4.{n} not in the report");
    }
    assert!(text.contains("All 39 figures are drawn."));
    assert!(text.contains("](fig-4-01-gravity-floor-scene.png)"), "links are relative to the report");
    assert!(!text.contains("Missing:"));
    assert!(!text.contains("k_d"), "old fixed parameter names");
    cleanup(&root);
}

#[test]
fn any_study_renders_under_generic_names_with_log_axes_for_log_parameters() {
    let root = temp_dir("xpbd");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let layout = xpbd_layout();
    write_synthetic_results(&results, &layout);
    let out = root.join("figures");
    let study = render_study(&results, &out, Naming::Generic, &[]).unwrap();
    let stems: Vec<&str> = study.figures.iter().map(|f| f.stem.as_str()).collect();
    assert_eq!(
        stems[..5],
        [
            "gravity-floor-reference",
            "gravity-floor-dt-error",
            "gravity-floor-dt-parameters",
            "gravity-floor-young-error",
            "gravity-floor-young-parameters"
        ]
    );
    assert_eq!(study.figures.len(), 4 * 5, "no scene pictures were given, so none are listed");
    for f in &study.figures {
        assert_eq!(f.thesis, None);
        assert!(!f.caption.starts_with("Figure"), "{}", f.caption);
        let files = f.files().unwrap_or_else(|| panic!("{} missing: {:?}", f.stem, f.outcome));
        assert_eq!(png_size(&files.png), figure_size(f.id.content, is_compound(&f.id.scene), 2));
        assert_eq!(files.png, out.join(format!("{}.png", f.stem)));
        let svg = std::fs::read_to_string(&files.svg).unwrap();
        if matches!(f.id.content, FigureContent::Parameters | FigureContent::Base) {
            // Log axes: decade ticks 10⁻⁹ ... (superscript exponents), axis names with units, no kd.
            assert!(svg.contains("10⁻⁹") && svg.contains("10⁻²"), "{}: no log decade ticks", f.stem);
            assert!(svg.contains("alpha_d (m/N)") && svg.contains("alpha_v (m^6/J)"), "{}", f.stem);
            assert!(!svg.contains(">kd<"));
        }
        if f.id.content == FigureContent::Parameters {
            assert!(f.caption.contains("fitted alpha_d and alpha_v against ν (xpbd)"), "{}", f.caption);
            assert!(f.sentences[0].starts_with("Averaged (geometric) over ν, alpha_d goes from"), "{:?}", f.sentences);
            assert!(f.sentences.iter().any(|s| s.contains("e-")), "{:?}", f.sentences);
        }
    }
    let report = out.join("README.md");
    write_report(&study, &report, &ReportContext::default()).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.starts_with("# pbdfit: the figures of study xpbd\n"), "{text}");
    assert!(text.contains("Model `xpbd`") && text.contains("`alpha_d` (m/N, log10 axis, box [1e-12, 100])"), "{text}");
    assert!(text.contains("## GravityFloor\n") && text.contains("### GravityFloor: Varying time step dt (`dt`)\n"));
    assert!(text.contains("### Gravity: Base case (`reference`)\n"));
    assert!(text.contains("](gravity-floor-dt-parameters.png)"));
    assert!(text.contains("All 20 figures are drawn."));
    assert!(!text.contains("Figure 4.") && !text.contains("kd"));
    cleanup(&root);
}

/// The `(y)` of every point of every polyline stroked in `colour` in an SVG.
fn polyline_ys(svg: &str, colour: &str) -> Vec<f64> {
    let mut ys = Vec::new();
    for el in svg.split("<polyline").skip(1) {
        let el = &el[..el.find("/>").unwrap()];
        if !el.contains(&format!("stroke=\"{colour}\" stroke-width=\"2\"")) {
            continue;
        }
        let points = el.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        for p in points.split_whitespace() {
            ys.push(p.split(',').nth(1).unwrap().parse::<f64>().unwrap());
        }
    }
    ys
}

#[test]
fn coinciding_curves_stay_distinguishable() {
    let root = temp_dir("overlap");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let mut layout = thesis_layout();
    layout.scenes.truncate(1);
    layout.experiments = vec![experiment("young", Some("young"), &[1e3, 1e4, 1e5, 1e6])];
    write_synthetic_results(&results, &layout);
    // Make the four variants identical in kd and kv: four curves exactly on top of each other.
    let path = csv(&results, "gravity-floor", "young");
    let mut rows = pbdfit_results::read_records(&path).unwrap();
    for r in &mut rows {
        r.parameters = vec![("kd".into(), 1.0), ("kv".into(), 0.5)];
    }
    write_records(&path, &["kd", "kv"], &rows).unwrap();
    let study = render_study(&results, &root.join("figures"), Naming::Generic, &[]).unwrap();
    let f = study.figures.iter().find(|f| f.id.content == FigureContent::Parameters).unwrap();
    let svg = std::fs::read_to_string(&f.files().unwrap().svg).unwrap();
    // Four styles: colours black, red, green, blue; each its own marker shape ...
    let colours = ["#000000", "#D60000", "#009600", "#0028DC"];
    assert!(svg.contains("<circle") && svg.contains("fill=\"#000000\""));
    let shape_of = |colour: &str| -> Vec<&str> {
        ["<circle", "<rect", "<polygon"]
            .into_iter()
            .filter(|tag| {
                svg.split(tag).skip(1).any(|el| el[..el.find("/>").unwrap()].contains(&format!("fill=\"{colour}\"")))
            })
            .collect()
    };
    assert_eq!(shape_of("#000000"), ["<circle"]);
    assert_eq!(shape_of("#D60000"), ["<rect"]);
    // Triangle and diamond are both polygons; they differ in their number of corners.
    let corners = |colour: &str| -> usize {
        let el = svg
            .split("<polygon")
            .skip(1)
            .map(|el| &el[..el.find("/>").unwrap()])
            .find(|el| el.contains(&format!("fill=\"{colour}\"")))
            .unwrap_or_else(|| panic!("no polygon marker in {colour}"));
        el.split("points=\"").nth(1).unwrap().split('"').next().unwrap().split_whitespace().count()
    };
    assert_eq!((corners("#009600"), corners("#0028DC")), (3, 4));
    // ... its own dash pattern (solid: one polyline per curve and panel; dashes: many, of different
    // counts) ...
    let pieces: Vec<usize> = colours
        .iter()
        .map(|c| svg.split("<polyline").filter(|el| el.contains(&format!("stroke=\"{c}\" stroke-width=\"2\""))).count())
        .collect();
    assert_eq!(pieces[0], 2, "black is solid: one polyline per panel");
    for i in 0..4 {
        for j in i + 1..4 {
            assert_ne!(pieces[i], pieces[j], "dash patterns {i} and {j} look the same: {pieces:?}");
        }
    }
    // ... and every curve is drawn at its value (no offset that makes a kd of 1 read as 0.97):
    // the four kd = 1 curves lie on the same pixel row, and the legend and caption say they overlap.
    let top_y: Vec<f64> =
        colours.iter().map(|c| polyline_ys(&svg, c).into_iter().fold(f64::INFINITY, f64::min)).collect();
    assert!(top_y.iter().all(|y| (y - top_y[0]).abs() < 0.5), "kd = 1 curves at y {top_y:?}");
    assert!(svg.contains("coinciding curves overlap"));
    assert!(f.caption.contains("overlap, each point drawn at its value"), "{}", f.caption);
    cleanup(&root);
}

#[test]
fn compound_error_shares_are_percent_panels() {
    let root = temp_dir("shares");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_synthetic_results(&results, &thesis_layout());
    let study = render_study(&results, &root.join("figures"), Naming::Thesis, &[]).unwrap();
    let f = study.figures.iter().find(|f| f.thesis.is_some_and(|t| t.number == 38)).unwrap();
    let svg = std::fs::read_to_string(&f.files().unwrap().svg).unwrap();
    assert!(svg.contains("% of e²") && svg.contains("GravityCeiling share"));
    // One percent panel per variant, each with a 100 tick.
    assert_eq!(svg.matches("\n100\n").count(), 4, "one 0..100 % axis per variant");
    // Each part's stacked band is a filled polygon in its colour, in every variant's panel: the tiny
    // ceiling share (about 0.01 % of e²) is drawn too.
    for colour in ["#D60000", "#009600", "#0028DC"] {
        let bands = svg.split("<polygon").filter(|el| el.contains(&format!("fill=\"{colour}\""))).count();
        assert!(bands >= 4, "{colour}: {bands} bands");
    }
    assert!(
        f.sentences.iter().any(|s| s.contains("GravityWall carries the largest share") && s.contains("% of e²")),
        "{:?}",
        f.sentences
    );
    // With several variants the shares are said per variant, never pooled across them.
    let shares: Vec<&String> = f.sentences.iter().filter(|s| s.contains("of the compound error")).collect();
    assert_eq!(shares.len(), 1, "{shares:?}");
    let variants = f.sentences.join(" ").matches("At ").count();
    assert!(variants >= 4, "one clause per variant: {shares:?}");
    cleanup(&root);
}

/// The compound's E experiment in the committed thesis results states the parts' shares per E
/// (the wall goes from 10 % of e² at E = 1e3 Pa to 66 % at 1e6), not pooled over the four (41 %).
#[test]
fn the_committed_e_experiment_states_the_shares_per_e() {
    let root = temp_dir("shares");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let study = render_study(&repo.join("fits/results/thesis"), &root, Naming::Thesis, &[]).unwrap();
    let text: String = study.figures.iter().flat_map(|f| f.sentences.clone()).collect::<Vec<_>>().join(" ");
    assert!(text.contains("At E = 1e3 Pa, GravityCeiling and GravityFloor carry equal shares"), "{text}");
    assert!(text.contains("(GravityWall 10%)"), "{text}");
    assert!(
        text.contains("At E = 1e6 Pa, GravityWall carries the largest share of the compound error: 66% of e²"),
        "{text}"
    );
    assert!(!text.contains("41% of e² on average"), "the pooled figure is gone");
    cleanup(&root);
}

#[test]
fn rendering_twice_gives_byte_identical_files() {
    let root = temp_dir("twice");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    write_synthetic_results(&results, &thesis_layout());
    let a = render_study(&results, &root.join("a"), Naming::Thesis, &pictures()).unwrap();
    let b = render_study(&results, &root.join("b"), Naming::Thesis, &pictures()).unwrap();
    assert_eq!(a.figures.len(), 39);
    for (fa, fb) in a.figures.iter().zip(&b.figures) {
        assert_eq!(fa.sentences, fb.sentences);
        let (fa, fb) = (fa.files().unwrap(), fb.files().unwrap());
        for (pa, pb) in [(&fa.png, &fb.png), (&fa.svg, &fb.svg)] {
            assert!(std::fs::read(pa).unwrap() == std::fs::read(pb).unwrap(), "{} differs", pa.display());
        }
    }
    cleanup(&root);
}

#[test]
fn missing_and_all_failed_results_are_listed_not_fatal() {
    let root = temp_dir("missing");
    let results = root.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let layout = thesis_layout();
    write_synthetic_results(&results, &layout);
    std::fs::remove_file(csv(&results, "gravity-wall", "nit")).unwrap();
    std::fs::write(csv(&results, "gravity-ceiling", "n"), "not,a\nvalid,file\n").unwrap();
    let base = layout.experiment("base").unwrap();
    let all_failed: Vec<FitRecord> =
        NUS.iter().map(|&nu| failed(record(&layout, "gravity", base, None, 0, nu))).collect();
    write_records(&csv(&results, "gravity", "base"), &["kd", "kv"], &all_failed).unwrap();
    let out = root.join("figures");
    let study = render_study(&results, &out, Naming::Thesis, &[]).unwrap();
    let missing: Vec<String> = study.missing().map(|(f, _)| f.label()).collect();
    assert_eq!(missing, ["4.1", "4.11", "4.17", "4.18", "4.21", "4.25", "4.26", "4.31"]);
    let FigureOutcome::Missing(why) = &study.figures[16].outcome else { unreachable!() };
    assert!(why.contains("gravity-wall-nit.csv"), "{why}");
    let FigureOutcome::Missing(why) = &study.figures[24].outcome else { unreachable!() };
    assert!(why.contains("gravity-ceiling-n.csv"), "{why}");
    let FigureOutcome::Missing(why) = &study.figures[30].outcome else { unreachable!() };
    assert!(why.contains("every one of the 8 fits"), "{why}");
    let report = root.join("README.md");
    write_report(&study, &report, &ReportContext::default()).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("31 of 39 figures are drawn. Missing: 4.1, 4.11, 4.17, 4.18, 4.21, 4.25, 4.26, 4.31"));
    assert!(text.contains("](figures/fig-4-02-gravity-floor-base.png)"));
    assert_eq!(text.matches("**Missing:**").count(), 8);
    // A thesis figure whose experiment the study lacks is missing, naming it; the study's own extra
    // experiment follows under its generic name.
    let mut other = layout.clone();
    other.experiments.retain(|e| e.name != "nit");
    other.experiments.push(experiment("mass", Some("dt"), &[0.01]));
    let results2 = root.join("results2");
    std::fs::create_dir_all(&results2).unwrap();
    write_synthetic_results(&results2, &other);
    let study = render_study(&results2, &root.join("figures2"), Naming::Thesis, &[]).unwrap();
    let FigureOutcome::Missing(why) = &study.figures[6].outcome else { panic!("4.7 drawn") };
    assert!(why.contains("no experiment `nit`"), "{why}");
    let extra: Vec<&str> = study.figures[39..].iter().map(|f| f.stem.as_str()).collect();
    assert_eq!(extra[..2], ["gravity-floor-mass-error", "gravity-floor-mass-parameters"]);
    cleanup(&root);
}

#[test]
fn a_results_folder_that_does_not_exist_or_has_no_layout_is_an_error_naming_it() {
    let e =
        render_study(Path::new("/nonexistent/pbdfit-results"), &temp_dir("none"), Naming::Generic, &[]).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/pbdfit-results"), "{e}");
    let dir = temp_dir("old-summary");
    std::fs::write(dir.join("summary.json"), "{\"study\": \"thesis\", \"fits\": 2600}").unwrap();
    let e = render_study(&dir, &dir.join("out"), Naming::Thesis, &[]).unwrap_err().to_string();
    assert!(e.contains("summary.json") && e.contains("run `pbdfit study` again"), "{e}");
    cleanup(&dir);
}

/// A folder of several models' studies is drawn as a comparison: one figure per scene and setting, a
/// table row per model, and models with equal errors reported as a tie, never ranked.
#[test]
fn a_comparison_of_models_names_ties() {
    let dir = temp_dir("models");
    let (pbd, xpbd) = (dir.join("pbd"), dir.join("xpbd"));
    std::fs::create_dir_all(&pbd).unwrap();
    std::fs::create_dir_all(&xpbd).unwrap();
    let n = || vec![experiment("n", Some("n"), &[1.0, 4.0])];
    let mut pbd_layout = thesis_layout();
    pbd_layout.experiments = n();
    let mut xpbd_layout = xpbd_layout();
    xpbd_layout.experiments = n();
    write_synthetic_results(&pbd, &pbd_layout);
    write_synthetic_results(&xpbd, &xpbd_layout);
    assert!(pbdfit_plot::is_models_folder(&dir) && !pbdfit_plot::is_models_folder(&pbd));
    let out = dir.join("report");
    // The order is the caller's (pbdfit passes the model registry's).
    let report = pbdfit_plot::render_models(&dir, &out, &["xpbd", "pbd"], Some("A note.")).unwrap();
    assert!(!report.figures.is_empty());
    for f in &report.figures {
        assert!(f.is_file() && f.with_extension("svg").is_file(), "{}", f.display());
    }
    let md = std::fs::read_to_string(&report.report).unwrap();
    assert!(
        md.contains("| pbd | kd (1), kv (1) |") && md.contains("| xpbd | alpha_d (m/N), alpha_v (m^6/J) |"),
        "{md}"
    );
    assert!(md.find("| xpbd | alpha_d").unwrap() < md.find("| pbd | kd").unwrap(), "listed in the given order");
    // The synthetic errors do not depend on the model: every ranking line is a tie.
    let ranking: Vec<&str> = md.lines().filter(|l| l.starts_with("| gravity")).collect();
    assert!(
        !ranking.is_empty() && ranking.iter().all(|l| l.contains("xpbd = pbd") && l.contains("tie")),
        "{ranking:?}"
    );
    assert!(md.trim_end().ends_with("A note."));
    cleanup(&dir);
}
