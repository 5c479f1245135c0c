//! Robustness of the importers: random bytes and random mutations of every valid fixture give `Ok` or
//! `Err`, never a panic (a panic fails the property); on `Ok`, validation too returns without panicking.

use std::path::PathBuf;

use pbdfit_mesh::import::{ImportError, ImportOptions, RawMesh, parse_gmsh, parse_legacy_vtk, parse_tetgen, parse_vtu};
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)).unwrap()
}

fn settle(result: Result<RawMesh, ImportError>) {
    if let Ok(raw) = result {
        for fix_orientation in [false, true] {
            let _ = raw.clone().validate("mutated", ImportOptions { fix_orientation });
        }
    }
}

/// One edit of a file.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the byte at (position mod length) by this one.
    Flip(usize, u8),
    /// Keep only the first (position mod length) bytes.
    Truncate(usize),
    /// Insert these digits at (position mod length).
    InsertDigits(usize, String),
    /// Delete line (number mod line count).
    DeleteLine(usize),
    /// Swap two whitespace-separated tokens on one line
    SwapNeighbour(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), prop::sample::select(vec![b'0', b'9', b'-', b'.', b'\n', b' ', b'e', b'$']))
            .prop_map(|(p, b)| Mutation::Flip(p, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), "[0-9]{1,20}").prop_map(|(p, d)| Mutation::InsertDigits(p, d)),
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::SwapNeighbour),
    ]
}

fn apply(bytes: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for m in mutations {
        if b.is_empty() {
            break;
        }
        let n = b.len();
        match m {
            Mutation::Flip(p, x) => b[p % n] = *x,
            Mutation::Truncate(p) => b.truncate(p % n),
            Mutation::InsertDigits(p, d) => {
                let at = p % n;
                b.splice(at..at, d.bytes());
            }
            Mutation::DeleteLine(l) | Mutation::SwapNeighbour(l) => {
                let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
                let k = l % lines.len();
                let out: Vec<Vec<u8>> = lines
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| !(i == k && matches!(m, Mutation::DeleteLine(_))))
                    .map(|(i, line)| {
                        if i == k {
                            let mut tokens: Vec<&[u8]> = line.split(|&c| c == b' ').collect();
                            if tokens.len() >= 2 {
                                tokens.swap(0, 1);
                            }
                            tokens.join(&b' ')
                        } else {
                            line.to_vec()
                        }
                    })
                    .collect();
                b = out.join(&b'\n');
            }
        }
    }
    b
}

const GMSH: [&str; 5] = ["cube22.msh", "cube22_bin.msh", "cube22_be.msh", "cube41.msh", "cube41_bin.msh"];
const VTU: [&str; 2] = ["cube.vtu", "cube_b64.vtu"];
const VTK: [&str; 2] = ["cube.vtk", "cube_bin.vtk"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), text in "[ -~\n]{0,300}") {
        settle(parse_gmsh(&bytes, "random"));
        settle(parse_vtu(&bytes, "random"));
        settle(parse_legacy_vtk(&bytes, "random"));
        let lossy = String::from_utf8_lossy(&bytes);
        settle(parse_tetgen(&lossy, &text, "random"));
        settle(parse_tetgen(&text, &lossy, "random"));
        // Random bodies behind valid headers reach past the header checks.
        let mut msh = b"$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n$Nodes\n".to_vec();
        msh.extend_from_slice(&bytes);
        settle(parse_gmsh(&msh, "random"));
        let mut msh = b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n".to_vec();
        msh.extend_from_slice(text.as_bytes());
        settle(parse_gmsh(&msh, "random"));
        let mut vtk = b"# vtk DataFile Version 3.0\nr\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 3 double\n".to_vec();
        vtk.extend_from_slice(&bytes);
        settle(parse_legacy_vtk(&vtk, "random"));
    }

    #[test]
    fn mutated_gmsh_never_panics(which in 0..GMSH.len(), mutations in prop::collection::vec(mutation(), 1..4)) {
        settle(parse_gmsh(&apply(&fixture(GMSH[which]), &mutations), "mutated.msh"));
    }

    #[test]
    fn mutated_vtu_never_panics(which in 0..VTU.len(), mutations in prop::collection::vec(mutation(), 1..4)) {
        settle(parse_vtu(&apply(&fixture(VTU[which]), &mutations), "mutated.vtu"));
    }

    #[test]
    fn mutated_legacy_vtk_never_panics(which in 0..VTK.len(), mutations in prop::collection::vec(mutation(), 1..4)) {
        settle(parse_legacy_vtk(&apply(&fixture(VTK[which]), &mutations), "mutated.vtk"));
    }

    #[test]
    fn mutated_tetgen_never_panics(one_based in any::<bool>(), in_node in any::<bool>(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let base = if one_based { "cube1" } else { "cube0" };
        let mut node = fixture(&format!("{base}.node"));
        let mut ele = fixture(&format!("{base}.ele"));
        if in_node { node = apply(&node, &mutations) } else { ele = apply(&ele, &mutations) }
        settle(parse_tetgen(&String::from_utf8_lossy(&node), &String::from_utf8_lossy(&ele), "mutated"));
    }
}
