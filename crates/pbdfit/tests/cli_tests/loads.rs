//! End-to-end tests of the load cases and imported meshes: the built-in load scenes and the shipped mesh
//! scenes through `pbdfit fem` and `pbdfit fit` (with `--vtk`), and exit code 2 with the file, key or
//! element named for bad meshes, bad loads and bodies too large for memory.

use crate::common::{self, assert_refused, displacements, json, max_norm, pbdfit, scratch, stderr, write};

/// A file of the repository, as an absolute path.
fn repo(path: &str) -> String {
    common::repo().join(path).display().to_string()
}

/// Tension with nu = 0 has the exact field u_y = t y / E: the top face rises by 10 / 1e3 m.
#[test]
fn fem_tension_gives_the_exact_stretch() {
    let v = json(&pbdfit(&["fem", "--scene", "tension", "--n", "2", "--poisson", "0", "--json"]));
    let top = max_norm(&displacements(&v));
    assert!((top - 0.01).abs() < 1e-12, "{top}");
}

/// Every load scene fits, and the shipped beam fits with `--vtk` writing the reference, the model and
/// the per-vertex error for ParaView.
#[test]
fn load_scenes_and_the_beam_fit() {
    for scene in ["tension", "compression", "shear"] {
        let v = json(&pbdfit(&["fit", "--scene", scene, "--json", "--grid", "5"]));
        let e = v["error"].as_f64().unwrap();
        assert!(e.is_finite() && e > 0.0, "{scene}: {e}");
    }
    // Torsion at its default N = 1 holds every vertex (the bottom face, and the turned top face): there is
    // nothing to fit, which is refused instead of "fitted" with error 0.
    let o = pbdfit(&["fit", "--scene", "torsion", "--json", "--grid", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("moves no free vertex"), "{}", stderr(&o));
    let dir = scratch("beam");
    let vtu = dir.join("beam.vtu");
    let o = pbdfit(&[
        "fit",
        "--scene",
        "cantilever",
        "--young",
        "1e4",
        "--dt",
        "0.001",
        "--nit",
        "8",
        "--grid",
        "5",
        "--json",
        "--vtk",
        vtu.to_str().unwrap(),
    ]);
    let v = json(&o);
    assert!(v["error"].as_f64().unwrap().is_finite());
    assert!(stderr(&o).contains("mesh meshes/beam.msh: 99 vertices, 200 tetrahedra"), "{}", stderr(&o));
    let written = std::fs::read_to_string(&vtu).unwrap();
    for name in ["reference_displacement", "model_displacement", "relative_error", "in_error", "held", "load_force"] {
        assert!(written.contains(&format!("Name=\"{name}\"")), "{name} missing from the .vtu");
    }
    assert!(written.contains("NumberOfPoints=\"99\"") && written.contains("NumberOfCells=\"200\""));
    std::fs::remove_dir_all(dir).ok();
}

/// A scene file names its mesh relative to itself: the shipped cylinder under torsion.
#[test]
fn the_cylinder_scene_file_loads_its_mesh() {
    let v = json(&pbdfit(&["fem", "--scene", &repo("scenes/cylinder.toml"), "--json"]));
    assert_eq!(v["vertices"].as_array().unwrap().len(), 441);
    // The rim of the top face turns by 0.05 rad at radius 0.25: a chord of 2 r sin(0.025).
    let expected = 2.0 * 0.25 * 0.025f64.sin();
    let largest = max_norm(&displacements(&v));
    assert!((largest - expected).abs() < 1e-9 * expected, "{largest} vs {expected}");
}

/// Bad meshes, bad loads and a body too large for memory: exit 2, naming the file, the key or element.
#[test]
fn bad_input_is_refused_with_its_name() {
    let dir = scratch("bad");
    // Two tetrahedra sharing a face, the second inverted (TetGen numbering from 1).
    write(&dir, "flip.node", "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n");
    write(&dir, "flip.ele", "2 4 0\n1 1 2 3 4\n2 2 4 3 5\n");
    let scene =
        |name: &str, body: &str, rest: &str| write(&dir, name, &format!("name = \"{name}\"\n[body]\n{body}\n{rest}"));
    let flip = scene("flip.toml", "mesh = \"flip.node\"", "[[held]]\nplane = \"z = 0\"\n");
    assert_refused(&["fem", "--scene", &flip], &["flip.toml", "body.mesh", "--fix-orientation"]);
    let o = pbdfit(&["fem", "--scene", &flip, "--fix-orientation", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 tetrahedra reoriented"), "{}", stderr(&o));
    // A part not connected to the held set.
    write(&dir, "apart.node", "8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 5 0 0\n6 6 0 0\n7 5 1 0\n8 5 0 1\n");
    write(&dir, "apart.ele", "2 4 0\n1 1 2 3 4\n2 5 6 7 8\n");
    let apart = scene("apart.toml", "mesh = \"apart.node\"", "[[held]]\nbox = { min = [0, 0, 0], max = [1, 1, 0] }\n");
    assert_refused(&["fem", "--scene", &apart], &["apart.toml", "fall forever"]);
    // Loads: a selector that selects nothing, a traction on the held face, a displacement larger than
    // the body, a group an imported mesh does not have.
    let cube = "shape = \"unit-cube\"";
    let held = "[[held]]\nplane = \"y = 0\"\n";
    let none = scene("none.toml", cube, &format!("{held}[[load.traction]]\nplane = \"x = 7\"\ntraction = [1, 0, 0]\n"));
    assert_refused(&["fit", "--scene", &none], &["none.toml", "load.traction[0]", "selects no vertex"]);
    let on_held =
        scene("held.toml", cube, &format!("{held}[[load.traction]]\nplane = \"y = 0\"\ntraction = [0, 1, 0]\n"));
    assert_refused(&["fem", "--scene", &on_held], &["held.toml", "load.traction[0]", "also held"]);
    let far =
        scene("far.toml", cube, &format!("{held}[[load.displacement]]\nplane = \"y = 1\"\ndisplacement = [0, 3, 0]\n"));
    assert_refused(&["fem", "--scene", &far], &["far.toml", "load.displacement[0]", "larger than the body"]);
    let beam = write(&dir, "beam.msh", &std::fs::read_to_string(repo("scenes/meshes/beam.msh")).unwrap());
    let _ = beam;
    let group = scene("group.toml", "mesh = \"beam.msh\"", "[[held]]\ngroup = \"wall\"\n");
    assert_refused(&["fem", "--scene", &group], &["group.toml", "held[0]", "no group `wall`", "clamp"]);
    // The cube that used to abort on a 192 GB allocation.
    assert_refused(
        &["fem", "--scene", "gravity-floor", "--n", "2000"],
        &["8012006001 vertices", "needs about", "available"],
    );
    std::fs::remove_dir_all(dir).ok();
}
