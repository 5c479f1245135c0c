//! Importers: round trips of the unit cube through every format, one test per validation error, and
//! physical groups. Fixtures under tests/data/ are written by tests/data/make_fixtures.py.

use std::path::PathBuf;

use pbdfit_mesh::import::{
    ImportError, ImportOptions, MeshFormat, RawMesh, parse_gmsh, parse_legacy_vtk, parse_tetgen, parse_vtu, read_mesh,
};
use pbdfit_mesh::{Vec3, unit_cube};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

const FIX: ImportOptions = ImportOptions { fix_orientation: true };
const STRICT: ImportOptions = ImportOptions { fix_orientation: false };

/// The fixtures: file name, format, expected first vertex number, expected element numbers.
const FIXTURES: [(&str, MeshFormat, usize, [usize; 5]); 11] = [
    ("cube22.msh", MeshFormat::Gmsh, 1, [3, 4, 5, 6, 7]),
    ("cube22_be.msh", MeshFormat::Gmsh, 1, [3, 4, 5, 6, 7]),
    ("cube22_bin.msh", MeshFormat::Gmsh, 1, [3, 4, 5, 6, 7]),
    ("cube41.msh", MeshFormat::Gmsh, 1, [3, 4, 5, 6, 7]),
    ("cube41_bin.msh", MeshFormat::Gmsh, 1, [3, 4, 5, 6, 7]),
    ("cube.vtu", MeshFormat::Vtu, 0, [0, 1, 2, 3, 4]),
    ("cube_b64.vtu", MeshFormat::Vtu, 0, [0, 1, 2, 3, 4]),
    ("cube.vtk", MeshFormat::LegacyVtk, 0, [0, 1, 2, 3, 4]),
    ("cube_bin.vtk", MeshFormat::LegacyVtk, 0, [0, 1, 2, 3, 4]),
    ("cube0.node", MeshFormat::TetGen, 0, [0, 1, 2, 3, 4]),
    ("cube1.ele", MeshFormat::TetGen, 1, [1, 2, 3, 4, 5]),
];

#[test]
fn every_format_reads_back_the_unit_cube() {
    let cube = unit_cube(1).unwrap();
    for (name, format, first, elements) in FIXTURES {
        let path = data(name);
        assert_eq!(MeshFormat::from_path(&path).unwrap(), format, "{name}");
        let raw = read_mesh(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(raw.vertices, cube.vertices(), "{name}: vertices");
        assert_eq!(raw.tets, cube.tets(), "{name}: tets");
        assert_eq!(raw.tet_ids, elements, "{name}: element numbers");
        assert_eq!(raw.vertex_ids, (first..first + 8).collect::<Vec<_>>(), "{name}: vertex numbers");
        let gmsh = format == MeshFormat::Gmsh;
        assert_eq!(raw.ignored_cells, if gmsh { 2 } else { 0 }, "{name}: the two clamp triangles");
        let imported = raw.validate(name, STRICT).unwrap();
        assert_eq!(&imported.mesh, &cube, "{name}");
        assert_eq!(imported.report.orientation_fixed, 0);
        assert_eq!(imported.report.unused_vertices_dropped, 0);
        let total: f64 = (0..5).map(|t| imported.mesh.tet_volume(t)).sum();
        assert!((total - 1.0).abs() < 1e-15, "{name}: volume {total}");
    }
}

#[test]
fn tetgen_reads_from_either_file_of_the_pair() {
    let a = read_mesh(&data("cube1.node")).unwrap();
    let b = read_mesh(&data("cube1.ele")).unwrap();
    assert_eq!(a, b);
}

#[test]
fn unknown_extension_names_the_path_and_the_known_ones() {
    let err = MeshFormat::from_path(&PathBuf::from("meshes/part.stl")).unwrap_err();
    assert!(matches!(err, ImportError::UnknownFormat { .. }));
    let message = err.to_string();
    for needle in ["meshes/part.stl", ".msh", ".vtu", ".vtk", ".node", ".ele"] {
        assert!(message.contains(needle), "{message}");
    }
    assert!(matches!(read_mesh(&data("missing.msh")), Err(ImportError::Io { .. })));
    // Every registered format: each of its extensions (in any case) names it, and the message lists it.
    for &format in MeshFormat::ALL {
        for ext in format.extensions() {
            for name in [format!("a/b.{ext}"), format!("a/b.{}", ext.to_ascii_uppercase())] {
                assert_eq!(MeshFormat::from_path(&PathBuf::from(&name)).unwrap(), format, "{name}");
            }
            assert!(message.contains(&format!(".{ext}")), "{message}");
        }
        assert!(message.contains(format.description()), "{message}");
    }
}

#[test]
fn gmsh_physical_groups_by_name_and_by_number() {
    for name in ["cube22.msh", "cube22_bin.msh", "cube22_be.msh", "cube41.msh", "cube41_bin.msh"] {
        let raw = read_mesh(&data(name)).unwrap();
        let clamp: Vec<usize> = raw.groups["clamp"].iter().copied().collect();
        // The face y = 0 of the unit cube: vertices 0, 1, 4, 5.
        assert_eq!(clamp, [0, 1, 4, 5], "{name}");
        assert_eq!(raw.groups["1"], raw.groups["clamp"], "{name}");
        assert_eq!(raw.groups["body"].len(), 8, "{name}");
        assert_eq!(raw.groups["2"], raw.groups["body"], "{name}");
        assert_eq!(raw.groups.len(), 4, "{name}: {:?}", raw.groups.keys());
        let imported = raw.validate(name, STRICT).unwrap();
        assert_eq!(imported.groups["clamp"], [0, 1, 4, 5]);
    }
    for name in ["cube.vtu", "cube.vtk", "cube0.node"] {
        assert!(read_mesh(&data(name)).unwrap().groups.is_empty(), "{name}");
    }
}

/// A TetGen pair from 1-based-style numbered points and tets (numbers as given).
fn tetgen(points: &[(usize, [f64; 3])], tets: &[(usize, [usize; 4])]) -> (String, String) {
    let mut node = format!("{} 3 0 0\n", points.len());
    for (n, p) in points {
        node += &format!("{n} {} {} {}\n", p[0], p[1], p[2]);
    }
    let mut ele = format!("{} 4 0\n", tets.len());
    for (n, t) in tets {
        ele += &format!("{n} {} {} {} {}\n", t[0], t[1], t[2], t[3]);
    }
    (node, ele)
}

/// The unit cube with points numbered 11..18 and tets 21..25; `flip` lists tets (0-based) given with
/// their last two vertices swapped.
fn cube_tetgen(flip: &[usize]) -> (String, String) {
    let cube = unit_cube(1).unwrap();
    let points: Vec<(usize, [f64; 3])> =
        cube.vertices().iter().enumerate().map(|(i, p)| (11 + i, [p.x, p.y, p.z])).collect();
    let tets: Vec<(usize, [usize; 4])> = cube
        .tets()
        .iter()
        .enumerate()
        .map(|(t, tet)| {
            let mut tet = tet.map(|v| v + 11);
            if flip.contains(&t) {
                tet.swap(2, 3);
            }
            (21 + t, tet)
        })
        .collect();
    tetgen(&points, &tets)
}

fn validate_tetgen(
    node: &str,
    ele: &str,
    options: ImportOptions,
) -> Result<pbdfit_mesh::import::ImportedMesh, ImportError> {
    parse_tetgen(node, ele, "case")?.validate("case", options)
}

#[test]
fn non_finite_coordinate_names_the_vertex() {
    let (node, ele) = cube_tetgen(&[]);
    let node = node.replace("13 0 1 0", "13 0 NaN 0");
    let err = validate_tetgen(&node, &ele, STRICT).unwrap_err();
    assert!(matches!(err, ImportError::NonFiniteCoordinate { vertex: 13, .. }), "{err:?}");
    assert!(err.to_string().contains("vertex 13"), "{err}");
    let node = cube_tetgen(&[]).0.replace("18 1 1 1", "18 1 inf 1");
    let err = validate_tetgen(&node, &ele, STRICT).unwrap_err();
    assert!(err.to_string().contains("vertex 18"), "{err}");
}

#[test]
fn index_out_of_range_names_the_element_and_vertex() {
    let (node, ele) = cube_tetgen(&[]);
    let ele = ele.replace("23 13 14 17 11", "23 13 14 99 11");
    let err = parse_tetgen(&node, &ele, "case").unwrap_err();
    assert!(matches!(err, ImportError::IndexOutOfRange { element: 23, vertex: 99, count: 8, .. }), "{err:?}");
    assert!(err.to_string().contains("element 23") && err.to_string().contains("vertex 99"), "{err}");
    // The same check in validation, for meshes built by hand.
    let raw = RawMesh {
        vertices: vec![Vec3::zeros(); 3],
        tets: vec![[0, 1, 2, 7]],
        tet_ids: vec![42],
        vertex_ids: vec![1, 2, 3],
        ..Default::default()
    };
    let err = raw.validate("hand", STRICT).unwrap_err();
    assert!(matches!(err, ImportError::IndexOutOfRange { element: 42, vertex: 7, count: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("element 42"), "{err}");
    // Gmsh: a tetrahedron naming a node tag that $Nodes does not define.
    let text = std::fs::read_to_string(data("cube22.msh")).unwrap().replace("5 4 2 2 1 3 4 7 1", "5 4 2 2 1 3 4 77 1");
    let err = parse_gmsh(text.as_bytes(), "cube22.msh").unwrap_err();
    assert!(matches!(err, ImportError::IndexOutOfRange { element: 5, vertex: 77, .. }), "{err:?}");
    // VTK: a cell naming point 8 of 8.
    let text = std::fs::read_to_string(data("cube.vtk")).unwrap().replace("4 7 6 3 5", "4 7 6 3 8");
    let err = parse_legacy_vtk(text.as_bytes(), "cube.vtk").unwrap_err();
    assert!(matches!(err, ImportError::IndexOutOfRange { element: 4, vertex: 8, count: 8, .. }), "{err:?}");
}

#[test]
fn no_tetrahedra_is_refused_and_counts_the_skipped_cells() {
    let text = std::fs::read_to_string(data("cube22.msh")).unwrap();
    // Keep the two triangles, drop the five tetrahedra.
    let kept: Vec<&str> = text.lines().filter(|l| l.split(' ').nth(1).is_none_or(|t| t != "4")).collect();
    let text = kept.join("\n").replace("$Elements\n7", "$Elements\n2");
    let raw = parse_gmsh(text.as_bytes(), "tris.msh").unwrap();
    assert_eq!(raw.ignored_cells, 2);
    let err = raw.validate("tris.msh", STRICT).unwrap_err();
    assert!(matches!(err, ImportError::NoTetrahedra { ignored_cells: 2, .. }), "{err:?}");
    assert!(err.to_string().contains("tris.msh"), "{err}");
}

#[test]
fn degenerate_tet_names_the_element_and_both_volumes() {
    let (node, mut ele) = cube_tetgen(&[]);
    // Element 26: four vertices on the face z = 0.
    ele = ele.replacen("5 4 0", "6 4 0", 1) + "26 11 12 14 13\n";
    let err = validate_tetgen(&node, &ele, STRICT).unwrap_err();
    match &err {
        ImportError::DegenerateTet { element, volume, mean_volume, .. } => {
            assert_eq!(*element, 26);
            assert_eq!(*volume, 0.0);
            // Mean of four 1/6 corners, one 1/3 centre and 0.
            assert!((mean_volume - 1.0 / 6.0).abs() < 1e-15, "{mean_volume}");
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(message.contains("element 26") && message.contains("1.6666666666666666e-1"), "{message}");
}

#[test]
fn inverted_tets_are_refused_naming_the_first_and_the_count() {
    let (node, ele) = cube_tetgen(&[1, 3]);
    let err = validate_tetgen(&node, &ele, STRICT).unwrap_err();
    match &err {
        ImportError::InvertedTets { element, volume, count, .. } => {
            assert_eq!((*element, *count), (22, 2));
            assert!((volume + 1.0 / 6.0).abs() < 1e-15, "{volume}");
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(message.contains("element 22") && message.contains("--fix-orientation"), "{message}");
}

#[test]
fn fix_orientation_swaps_and_counts_two_inverted_tets() {
    let (node, ele) = cube_tetgen(&[1, 3]);
    let imported = validate_tetgen(&node, &ele, FIX).unwrap();
    assert_eq!(imported.report.orientation_fixed, 2);
    let volumes: Vec<f64> = (0..5).map(|t| imported.mesh.tet_volume(t)).collect();
    assert!(volumes.iter().all(|&v| v > 0.0), "{volumes:?}");
    assert!((volumes.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    // The swap is of the last two vertices, so the fixed mesh is the cube itself.
    assert_eq!(imported.mesh, unit_cube(1).unwrap());
    // No inverted tets: nothing fixed.
    let (node, ele) = cube_tetgen(&[]);
    assert_eq!(validate_tetgen(&node, &ele, FIX).unwrap().report.orientation_fixed, 0);
}

#[test]
fn duplicate_vertices_name_both_numbers_and_the_position() {
    // Two tetrahedra that should share vertex (1, 0, 0) but each have their own copy (2 and 6).
    let points = [
        (1, [0.0, 0.0, 0.0]),
        (2, [1.0, 0.0, 0.0]),
        (3, [0.0, 1.0, 0.0]),
        (4, [0.0, 0.0, 1.0]),
        (5, [0.0, 0.0, -1.0]),
        (6, [1.0 + 1e-14, 0.0, 0.0]),
    ];
    let (node, ele) = tetgen(&points, &[(1, [1, 2, 3, 4]), (2, [1, 3, 6, 5])]);
    let err = validate_tetgen(&node, &ele, STRICT).unwrap_err();
    assert!(
        matches!(err, ImportError::DuplicateVertices { first: 2, second: 6, x: 1.0, y: 0.0, z: 0.0, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("vertices 2 and 6") && message.contains("(1, 0, 0)"), "{message}");
    // 1e-10 apart (the diagonal is 2.4): not a duplicate.
    let points_apart: Vec<_> =
        points.iter().map(|&(n, p)| if n == 6 { (n, [1.0 + 1e-10, 0.0, 0.0]) } else { (n, p) }).collect();
    let (node, ele) = tetgen(&points_apart, &[(1, [1, 2, 3, 4]), (2, [1, 3, 6, 5])]);
    assert_eq!(validate_tetgen(&node, &ele, STRICT).unwrap().mesh.vertices().len(), 6);
}

#[test]
fn duplicates_are_found_among_many_vertices() {
    // 4000 disjoint tetrahedra in a row, the last one's first vertex moved onto vertex 1: found by the
    // binned search, and an unused duplicate of a vertex is only dropped, not an error.
    let mut raw = RawMesh::default();
    for t in 0..4000 {
        let x = t as f64 * 2.0;
        for p in [[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0], [x, 1.0, 0.0], [x, 0.0, 1.0]] {
            raw.vertex_ids.push(raw.vertices.len() + 1);
            raw.vertices.push(Vec3::from(p));
        }
        raw.tets.push([4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3]);
        raw.tet_ids.push(t + 1);
    }
    let mut unused = raw.clone();
    unused.vertices.push(Vec3::new(0.0, 0.0, 0.0));
    unused.vertex_ids.push(99_999);
    unused.groups.insert("g".into(), [0, 16_000].into_iter().collect());
    let imported = unused.validate("row", STRICT).unwrap();
    assert_eq!(imported.report.unused_vertices_dropped, 1);
    assert_eq!(imported.mesh.vertices().len(), 16_000);
    assert_eq!(imported.groups["g"], [0], "the dropped vertex leaves the group");
    let last = raw.vertices.len() - 4;
    raw.vertices[last] = Vec3::new(1.0, 0.0, 0.0);
    // Keep the moved tetrahedron positive: (1,0,0), (x+1,0,0), (x,1,0), (x,0,1) with x = 7998.
    let err = raw.validate("row", FIX).unwrap_err();
    assert!(matches!(err, ImportError::DuplicateVertices { first: 2, second: 15_997, .. }), "{err:?}");
}

#[test]
fn unused_vertices_are_dropped_renumbered_and_counted() {
    let (node, ele) = cube_tetgen(&[]);
    // Point 10, used by nothing, before all others; point 19 after.
    let node = node.replacen("8 3 0 0\n", "10 3 0 0\n10 5 5 5\n", 1) + "19 -5 -5 -5\n";
    let imported = validate_tetgen(&node, &ele, STRICT).unwrap();
    assert_eq!(imported.report.unused_vertices_dropped, 2);
    assert_eq!(imported.vertex_ids, (11..=18).collect::<Vec<_>>());
    assert_eq!(imported.mesh, unit_cube(1).unwrap());
}

#[test]
fn unsupported_and_malformed_gmsh_headers() {
    let v3 = b"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n";
    let err = parse_gmsh(v3, "v3.msh").unwrap_err();
    assert!(matches!(err, ImportError::Unsupported { .. }) && err.to_string().contains("3.0"), "{err}");
    let v40 = b"$MeshFormat\n4 0 8\n$EndMeshFormat\n";
    assert!(matches!(parse_gmsh(v40, "v4.msh"), Err(ImportError::Unsupported { .. })));
    let text = std::fs::read_to_string(data("cube41.msh")).unwrap();
    let bad = text.replace("0.0 1.0 1.0 \n", "0.0 one 1.0 \n");
    let err = parse_gmsh(bad.as_bytes(), "bad.msh").unwrap_err();
    // The 7th coordinate line, line 31 of the file.
    assert!(matches!(err, ImportError::Syntax { line: Some(31), .. }), "{err:?}");
    assert!(err.to_string().contains("bad.msh, line 31") && err.to_string().contains("`one`"), "{err}");
    let partitioned = text.replace("$Entities", "$PartitionedEntities\n$EndPartitionedEntities\n$Entities");
    assert!(matches!(parse_gmsh(partitioned.as_bytes(), "p.msh"), Err(ImportError::Unsupported { .. })));
}

#[test]
fn huge_counts_are_errors_not_allocations() {
    let gmsh = b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1000000000000000000\n1 0 0 0\n$EndNodes\n";
    assert!(matches!(parse_gmsh(gmsh, "huge.msh"), Err(ImportError::Syntax { .. })));
    let text = std::fs::read_to_string(data("cube41.msh"))
        .unwrap()
        .replace("1 8 1 8 \n3 1 0 8", "1 8 1 8 \n3 1 0 1000000000000000000");
    assert!(matches!(parse_gmsh(text.as_bytes(), "huge41.msh"), Err(ImportError::Syntax { .. })));
    let node = "1000000000000000000 3 0 0\n1 0 0 0\n";
    assert!(matches!(parse_tetgen(node, "0 4 0\n", "huge"), Err(ImportError::Syntax { .. })));
    let vtk = std::fs::read_to_string(data("cube.vtk")).unwrap().replace("POINTS 8", "POINTS 1000000000000000000");
    assert!(parse_legacy_vtk(vtk.as_bytes(), "huge.vtk").is_err());
    let vtu = std::fs::read_to_string(data("cube.vtu"))
        .unwrap()
        .replace("NumberOfPoints=\"8\"", "NumberOfPoints=\"1000000000000000000\"");
    assert!(parse_vtu(vtu.as_bytes(), "huge.vtu").is_err());
}

/// vtkio 0.7.0-rc2 unwraps a missing <Points> (found by the mutation property test): an error here.
#[test]
fn regression_vtu_piece_without_points_is_an_error_not_a_panic() {
    let text = std::fs::read_to_string(data("cube.vtu")).unwrap();
    let start = text.find("<Points>").unwrap();
    let end = text.find("</Points>").unwrap() + "</Points>".len();
    let cut = format!("{}{}", &text[..start], &text[end..]);
    let err = parse_vtu(cut.as_bytes(), "cut.vtu").unwrap_err();
    assert!(matches!(err, ImportError::Syntax { .. }) && err.to_string().contains("cut.vtu"), "{err}");
    // Points deleted but the word still present elsewhere: vtkio's panic, caught.
    let sneaky = cut.replace("<Piece ", "<!-- <Points --><Piece ");
    assert!(matches!(parse_vtu(sneaky.as_bytes(), "sneaky.vtu"), Err(ImportError::Syntax { .. })));
}

/// Coordinates large enough that a volume overflows to infinity are refused, not passed on with an
/// infinite mass (the check used to test only for NaN); the message says the coordinates are too large
/// and names the element, instead of "|volume| inf m^3 is below 1e-12 times the mean inf".
#[test]
fn an_overflowing_volume_is_refused() {
    for big in ["1e110", "1e300"] {
        let node = format!("4 3 0 0\n1 0 0 0\n2 {big} 0 0\n3 0 {big} 0\n4 0 0 {big}\n");
        let ele = "1 4 0\n7 1 2 3 4\n";
        let raw = parse_tetgen(&node, ele, "huge").unwrap();
        let e = raw.validate("huge", ImportOptions::default()).unwrap_err();
        assert!(matches!(e, ImportError::NonFiniteVolume { element: 7, .. }), "{e}");
        let message = e.to_string();
        assert!(
            message.contains("element 7") && message.contains("too large") && message.contains("not a finite"),
            "{message}"
        );
        assert!(!message.contains("times the mean"), "{message}");
    }
}

/// A malformed legacy `.vtk` names the file and the line where reading failed, not vtkio's bare
/// "Parse error: Complete / Digit / Tag".
#[test]
fn a_malformed_legacy_vtk_names_the_line() {
    let good = std::fs::read_to_string(data("cube.vtk")).unwrap();
    let line_of = |needle: &str| good.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // A coordinate that is not a number.
    let points = line_of("POINTS") + 2;
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    lines[points - 1] = lines[points - 1].replacen('1', "x", 1);
    let bad = lines.join("\n") + "\n";
    let e = parse_legacy_vtk(bad.as_bytes(), "bad.vtk").unwrap_err();
    let message = e.to_string();
    assert!(matches!(e, ImportError::Syntax { line: Some(_), .. }), "{message}");
    assert!(message.contains("bad.vtk") && message.contains(&format!("line {points}")), "{message}");
    // A misspelt keyword.
    let bad = good.replace("CELL_TYPES", "CELL_TYPOS");
    let e = parse_legacy_vtk(bad.as_bytes(), "typo.vtk").unwrap_err().to_string();
    assert!(e.contains("typo.vtk") && e.contains(&format!("line {}", line_of("CELL_TYPES"))), "{e}");
}
