//! A compound scene that includes itself, directly or through other files, overflowed
//! the stack (the nesting check ran after the recursive load). Now any graph of scene files loads, or
//! ends with a `SceneError::Compound` naming the chain of files, without recursing more than one level.

use std::path::{Path, PathBuf};

use pbdfit_mesh::{SceneError, SceneSet};
use proptest::prelude::*;

const BASIC: &str = "[body]\nshape = \"unit-cube\"\n[[held]]\nplane = \"y = 0\"\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdfit-mesh-cycle-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, file: &str, parts: Option<&[&str]>) {
    let text = match parts {
        Some(parts) => {
            let list: Vec<String> = parts.iter().map(|p| format!("{p:?}")).collect();
            format!("name = {file:?}\ncompound = [{}]\n", list.join(", "))
        }
        None => format!("name = {file:?}\n{BASIC}"),
    };
    std::fs::write(dir.join(file), text).unwrap();
}

fn chain_of(e: SceneError) -> (Vec<String>, bool) {
    match e {
        SceneError::Compound { chain, cycle } => (chain, cycle),
        other => panic!("expected a compound error, got {other}"),
    }
}

#[test]
fn a_scene_that_includes_itself_names_the_chain() {
    let dir = scratch("self");
    write(&dir, "loop.toml", Some(&["loop.toml"]));
    let e = SceneSet::load(dir.join("loop.toml").to_str().unwrap()).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("loop.toml -> ") && message.contains("includes itself"), "{message}");
    let (chain, cycle) = chain_of(e);
    assert!(cycle);
    assert_eq!(chain.len(), 2, "{chain:?}");

    // Through another file: a -> b -> a.
    write(&dir, "a.toml", Some(&["gravity-floor", "b.toml"]));
    write(&dir, "b.toml", Some(&["a.toml"]));
    let e = SceneSet::load(dir.join("a.toml").to_str().unwrap()).unwrap_err();
    let (chain, cycle) = chain_of(e);
    assert!(cycle);
    assert_eq!(chain.len(), 3, "{chain:?}");
    assert!(chain[0].ends_with("a.toml") && chain[1].ends_with("b.toml") && chain[2].ends_with("a.toml"), "{chain:?}");

    // Nesting without a cycle, through a file or a built-in compound.
    write(&dir, "c.toml", Some(&["gravity-floor"]));
    write(&dir, "d.toml", Some(&["c.toml"]));
    let (chain, cycle) = chain_of(SceneSet::load(dir.join("d.toml").to_str().unwrap()).unwrap_err());
    assert!(!cycle);
    assert!(chain[1].ends_with("c.toml"), "{chain:?}");
    write(&dir, "e.toml", Some(&["gravity"]));
    let e = SceneSet::load(dir.join("e.toml").to_str().unwrap()).unwrap_err();
    assert!(e.to_string().contains("builtin:gravity"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random graphs of up to five scene files (each basic, or compound over some of the files and a
    /// built-in): loading any of them gives a set of basic scenes exactly when none of its parts is
    /// compound, and otherwise the chain from it to the first compound part (with the cycle marked when
    /// the part leads back into the chain). Never a stack overflow.
    #[test]
    fn any_graph_of_scene_files_loads_or_names_its_chain(
        kinds in prop::collection::vec(prop::option::of(prop::collection::vec(0usize..6, 1..4)), 1..6),
        start in 0usize..5,
    ) {
        let dir = scratch("graph");
        let name = |i: usize| if i >= kinds.len() { "gravity-wall".to_string() } else { format!("s{i}.toml") };
        for (i, kind) in kinds.iter().enumerate() {
            let parts: Option<Vec<String>> = kind.as_ref().map(|p| p.iter().map(|&j| name(j)).collect());
            let refs: Option<Vec<&str>> = parts.as_ref().map(|p| p.iter().map(String::as_str).collect());
            write(&dir, &name(i), refs.as_deref());
        }
        let start = start % kinds.len();
        let result = SceneSet::load(dir.join(name(start)).to_str().unwrap());
        match &kinds[start] {
            None => prop_assert!(result.is_ok()),
            Some(parts) => {
                let first_compound =
                    parts.iter().find(|&&j| j < kinds.len() && (j == start || kinds[j].is_some()));
                match (first_compound, result) {
                    (None, Ok(set)) => prop_assert_eq!(set.scenes().len(), parts.len()),
                    (Some(&j), Err(e)) => {
                        let (chain, cycle) = chain_of(e);
                        prop_assert!(chain[1].ends_with(&name(j)), "{:?}", chain);
                        let expect_cycle = j == start
                            || kinds[j].as_ref().unwrap().iter().any(|&k| k == start || k == j);
                        prop_assert_eq!(cycle, expect_cycle, "{:?}", chain);
                    }
                    (expected, got) => prop_assert!(false, "expected {:?}, got {:?}", expected, got.map(|s| s.name().to_string())),
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
