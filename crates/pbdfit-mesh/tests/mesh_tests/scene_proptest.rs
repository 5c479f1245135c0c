//! Robustness of the scene parser: random text and random mutations of every built-in scene give a
//! scene or an error, never a panic; a scene that parses builds its body or says why not.

use pbdfit_mesh::{BUILTIN_SCENES, SceneSet, SheetScene};
use proptest::prelude::*;

/// Parses `text` as a built-in would be (its mesh from the compiled-in ones) and builds the body of
/// every part at its default resolution (capped, so a mutated `n` cannot ask for a huge cube).
fn settle(text: &str) {
    if let Ok(set) = SceneSet::parse(text, "mutated.toml", None) {
        for scene in set.scenes() {
            let _ = scene.body(scene.default_n.min(3));
        }
    }
    if let Ok(sheet) = SheetScene::parse(text, "mutated.toml", None) {
        let _ = sheet.body(Some(sheet.default_n.min(3)));
    }
}

/// One edit of a scene file's text.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the character at (position mod length) by this one.
    Replace(usize, char),
    /// Keep only the first (position mod length) characters.
    Truncate(usize),
    /// Insert this text at (position mod length).
    Insert(usize, String),
    /// Delete line (number mod line count).
    DeleteLine(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let tokens = vec![
        "0",
        "-1",
        "1e308",
        "nan",
        "inf",
        "-0.0",
        "2",
        "\"\"",
        "[",
        "]",
        "=",
        "\n",
        "[[held]]\n",
        "[[load.traction]]\n",
        "[[load.rotation]]\n",
        "[[load.displacement]]\n",
        "[[load.pressure]]\n",
        "pressure = 1e300\n",
        "pressure = -77\n",
        "follower = false\n",
        "follower = 1\n",
        "plane = \"z = 0\"\n",
        "plane = \"y = 1\"\n",
        "group = \"tip\"\n",
        "box = { min = [0, 0, 0], max = [1, 1, 1] }\n",
        "traction = [0, 1e300, 0]\n",
        "angle = 3.2\n",
        "axis = [0, 0, 0]\n",
        "center = [0, 0, 0]\n",
        "displacement = [1e9, 0, 0]\n",
        "mesh = \"meshes/beam.msh\"\n",
        "compound = [\"gravity-floor\"]\n",
        "n = 1000000\n",
    ];
    prop_oneof![
        (any::<usize>(), prop::sample::select(vec!['0', '9', '-', '.', '\n', ' ', '"', '[', ']', '=', 'e', '#', 'y']))
            .prop_map(|(p, c)| Mutation::Replace(p, c)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), prop::sample::select(tokens)).prop_map(|(p, t)| Mutation::Insert(p, t.to_string())),
        any::<usize>().prop_map(Mutation::DeleteLine),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in mutations {
        if chars.is_empty() {
            break;
        }
        let n = chars.len();
        match m {
            Mutation::Replace(p, c) => chars[p % n] = *c,
            Mutation::Truncate(p) => chars.truncate(p % n),
            Mutation::Insert(p, t) => {
                let at = p % n;
                chars.splice(at..at, t.chars());
            }
            Mutation::DeleteLine(k) => {
                let text: String = chars.iter().collect();
                let lines: Vec<&str> = text.lines().collect();
                let drop = k % lines.len().max(1);
                let kept: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != drop).map(|(_, l)| *l).collect();
                chars = kept.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,400}") {
        settle(&text);
    }

    #[test]
    fn mutated_scenes_never_panic(
        scene in 0..BUILTIN_SCENES.len(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        settle(&apply(BUILTIN_SCENES[scene].1, &mutations));
    }
}

/// The unmutated built-ins all parse and build, so the property above starts from valid files.
#[test]
fn every_builtin_scene_builds() {
    for (name, text) in BUILTIN_SCENES {
        if SheetScene::names_sheet(name) {
            let sheet = SheetScene::parse(text, name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
            sheet.body(Some(2)).unwrap_or_else(|e| panic!("{name} at n = 2: {e}"));
            continue;
        }
        let set = SceneSet::parse(text, name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        for scene in set.scenes() {
            // The contact scenes (resting, indentation, incline) must start free of their obstacles at
            // N = 1 and 2, as their fits and tests use both (imported meshes have N = 1 only).
            let resolutions: &[usize] = if scene.obstacles.is_empty() { &[1] } else { &[1, 2] };
            for &n in resolutions {
                scene.body(n).unwrap_or_else(|e| panic!("{name} at N = {n}: {e}"));
            }
        }
    }
}
