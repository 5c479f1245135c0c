//! A `.vtu` whose <Piece> lacks <Points>, with the text `<Points` in a comment, passed
//! the text count, vtkio panicked, and although the result was a clean error the default panic hook
//! printed a backtrace. Now the XML's structure is checked before vtkio converts it, and vtkio is called
//! with the hook quiet on this thread: no input reaches the panic hook.

use std::cell::Cell;
use std::path::PathBuf;

use pbdfit_mesh::import::{ImportError, parse_vtu};
use proptest::prelude::*;

thread_local! {
    /// Panic-hook invocations on this thread.
    static HOOK_CALLS: Cell<usize> = const { Cell::new(0) };
}

/// Installs (once) a panic hook that counts its calls per thread, and returns this thread's count.
fn hook_calls() -> usize {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            HOOK_CALLS.with(|c| c.set(c.get() + 1));
            previous(info);
        }));
    });
    HOOK_CALLS.with(Cell::get)
}

fn cube() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/cube.vtu");
    std::fs::read_to_string(path).unwrap()
}

fn without_points(text: &str) -> String {
    let start = text.find("<Points>").unwrap();
    let end = text.find("</Points>").unwrap() + "</Points>".len();
    format!("{}{}", &text[..start], &text[end..])
}

#[test]
fn a_piece_without_points_is_named_without_reaching_the_panic_hook() {
    let before = hook_calls();
    let cut = without_points(&cube());
    let variants = [
        cut.replace("<Piece ", "<!-- <Points --><Piece "),
        cut.replace("<Piece ", "<!-- <Points> </Points> --><Piece "),
        cut.replace("<Cells>", "<Cells><!-- <Points --> "),
        cut.replace("<Piece NumberOfPoints=\"8\" NumberOfCells=\"5\">", "<Piece NumberOfPoints=\"8\"/><Piece>"),
    ];
    for (i, text) in variants.iter().enumerate() {
        let e = parse_vtu(text.as_bytes(), "sneaky.vtu").unwrap_err();
        assert!(matches!(e, ImportError::Syntax { .. }), "{i}: {e}");
        assert!(e.to_string().contains("sneaky.vtu") && e.to_string().contains("has no <Points>"), "{i}: {e}");
    }
    assert_eq!(hook_calls(), before, "the panic hook ran");
    assert!(parse_vtu(cube().as_bytes(), "cube.vtu").is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A comment (with `<Points` in it, or not) anywhere between elements, and the <Points> element kept
    /// or removed: a mesh or an error, and the panic hook never runs.
    #[test]
    fn comments_and_missing_points_never_reach_the_panic_hook(
        at in 0usize..16,
        comment in prop::sample::select(vec!["<!-- <Points -->", "<!-- <Points></Points> -->", "<!-- x -->"]),
        remove in any::<bool>(),
    ) {
        let before = hook_calls();
        let text = if remove { without_points(&cube()) } else { cube() };
        let breaks: Vec<usize> = text.match_indices(">\n").map(|(i, _)| i + 2).collect();
        let at = breaks[at % breaks.len()];
        let text = format!("{}{comment}\n{}", &text[..at], &text[at..]);
        let result = parse_vtu(text.as_bytes(), "t.vtu");
        prop_assert_eq!(hook_calls(), before);
        if remove {
            prop_assert!(result.is_err());
        }
    }
}
