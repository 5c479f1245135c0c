//! VTK output for ParaView: a tetrahedral mesh ([`write_vtu`]) or a sheet's triangle mesh
//! ([`write_vtu_triangles`]) with point data as an XML unstructured grid (`.vtu`), and a `.pvd`
//! collection that strings `.vtu` frames into a time series.

use std::path::Path;

use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, Cells, DataSet, UnstructuredGridPiece, Version, VertexNumbers, Vtk,
};

use crate::{Tet, Triangle, Vec3};

/// Point data attached to a `.vtu` file.
#[derive(Debug, Clone, PartialEq)]
pub enum PointData {
    /// One 3-vector per vertex (e.g. the displacement in m).
    Vectors(Vec<Vec3>),
    /// One scalar per vertex (e.g. mass in kg, or 1 for held vertices).
    Scalars(Vec<f64>),
}

/// Writes `points` (m) and `tets` as a VTK XML unstructured grid with the named point data arrays.
/// The file name must end in `.vtu`.
pub fn write_vtu(path: &Path, points: &[Vec3], tets: &[Tet], data: &[(&str, PointData)]) -> Result<(), String> {
    let connectivity: Vec<u64> = tets.iter().flat_map(|t| t.map(|v| v as u64)).collect();
    write_cells(path, points, connectivity, 4, CellType::Tetra, data)
}

/// Writes `points` (m) and a sheet's `triangles` as a VTK XML unstructured grid of triangle cells with
/// the named point data arrays. The file name must end in `.vtu`.
pub fn write_vtu_triangles(
    path: &Path,
    points: &[Vec3],
    triangles: &[Triangle],
    data: &[(&str, PointData)],
) -> Result<(), String> {
    let connectivity: Vec<u64> = triangles.iter().flat_map(|t| t.map(|v| v as u64)).collect();
    write_cells(path, points, connectivity, 3, CellType::Triangle, data)
}

/// Writes cells of `size` vertices each, all of type `kind`.
fn write_cells(
    path: &Path,
    points: &[Vec3],
    connectivity: Vec<u64>,
    size: u64,
    kind: CellType,
    data: &[(&str, PointData)],
) -> Result<(), String> {
    let cells = connectivity.len() as u64 / size;
    let coords: Vec<f64> = points.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    let offsets: Vec<u64> = (1..=cells).map(|i| size * i).collect();
    let mut attributes = Attributes::new();
    for (name, d) in data {
        attributes.point.push(match d {
            PointData::Vectors(v) => {
                Attribute::vectors(*name).with_data(v.iter().flat_map(|p| [p.x, p.y, p.z]).collect::<Vec<f64>>())
            }
            PointData::Scalars(s) => Attribute::scalars(*name, 1).with_data(s.clone()),
        });
    }
    let vtk = Vtk {
        version: Version::new_xml(1, 0),
        title: String::from("pbdfit"),
        byte_order: ByteOrder::LittleEndian,
        file_path: None,
        data: DataSet::inline(UnstructuredGridPiece {
            points: coords.into(),
            cells: Cells {
                cell_verts: VertexNumbers::XML { connectivity, offsets },
                types: vec![kind; cells as usize],
            },
            data: attributes,
        }),
    };
    vtk.export(path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// What a `.vtu` file holds, as read back by [`read_vtu`].
#[derive(Debug, Clone, PartialEq)]
pub struct VtuContents {
    /// Point coordinates in m.
    pub points: Vec<Vec3>,
    /// Tetrahedra (a file of tetrahedra).
    pub tets: Vec<Tet>,
    /// Triangles (a file of triangles, as [`write_vtu_triangles`] writes).
    pub triangles: Vec<Triangle>,
    /// Named point data arrays, flattened (3 values per vertex for vectors).
    pub point_data: Vec<(String, Vec<f64>)>,
}

/// Reads a `.vtu` file written by [`write_vtu`] (used by tests and by anyone checking an output file).
pub fn read_vtu(path: &Path) -> Result<VtuContents, String> {
    let vtk = Vtk::import(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        return Err(format!("{} is not an unstructured grid", path.display()));
    };
    let piece = pieces
        .into_iter()
        .next()
        .ok_or_else(|| format!("{} has no piece", path.display()))?
        .into_loaded_piece_data(None)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let coords: Vec<f64> = piece.points.cast_into().ok_or("points are not numbers")?;
    let points = coords.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    let triangle_file = piece.cells.types.first() == Some(&CellType::Triangle);
    let (connectivity, _offsets) = piece.cells.cell_verts.into_xml();
    let (tets, triangles) = if triangle_file {
        (Vec::new(), connectivity.chunks(3).map(|c| [c[0] as usize, c[1] as usize, c[2] as usize]).collect())
    } else {
        let tets = connectivity.chunks(4).map(|c| [c[0] as usize, c[1] as usize, c[2] as usize, c[3] as usize]);
        (tets.collect(), Vec::new())
    };
    let mut point_data = Vec::new();
    for a in piece.data.point {
        if let Attribute::DataArray(d) = a {
            let values: Vec<f64> = d.data.cast_into().ok_or("point data is not numeric")?;
            point_data.push((d.name, values));
        }
    }
    Ok(VtuContents { points, tets, triangles, point_data })
}

/// Writes a ParaView collection (`.pvd`) listing `(time in s, file name relative to the .pvd)` frames.
pub fn write_pvd(path: &Path, frames: &[(f64, String)]) -> Result<(), String> {
    let mut xml = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, file) in frames {
        xml.push_str(&format!("    <DataSet timestep=\"{t:e}\" group=\"\" part=\"0\" file=\"{file}\"/>\n"));
    }
    xml.push_str("  </Collection>\n</VTKFile>\n");
    std::fs::write(path, xml).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vtu_round_trip() {
        let mesh = crate::unit_cube(2).unwrap();
        let u: Vec<Vec3> = mesh.vertices().iter().map(|p| Vec3::new(p.x * 1e-3, -p.y * 2e-3, 0.5)).collect();
        let dir = std::env::temp_dir().join(format!("pbdfit-vtk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cube.vtu");
        let held: Vec<f64> = (0..mesh.vertices().len()).map(|v| (v % 2) as f64).collect();
        write_vtu(
            &path,
            mesh.vertices(),
            mesh.tets(),
            &[("displacement", PointData::Vectors(u.clone())), ("held", PointData::Scalars(held.clone()))],
        )
        .unwrap();
        let back = read_vtu(&path).unwrap();
        assert_eq!(back.points, mesh.vertices());
        assert_eq!(back.tets, mesh.tets());
        assert_eq!(back.point_data[0].0, "displacement");
        let flat: Vec<f64> = u.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
        assert_eq!(back.point_data[0].1, flat);
        assert_eq!(back.point_data[1].1, held);
        // A sheet's triangles.
        let sheet = crate::SheetMesh::rectangle(1.0, 0.5, 3, 2, crate::Diagonal::Crossed).unwrap();
        let path = dir.join("sheet.vtu");
        let z: Vec<f64> = sheet.vertices().iter().map(|p| p.x * p.y).collect();
        write_vtu_triangles(&path, sheet.vertices(), sheet.triangles(), &[("z", PointData::Scalars(z.clone()))])
            .unwrap();
        let back = read_vtu(&path).unwrap();
        assert_eq!((back.points.as_slice(), back.triangles.as_slice()), (sheet.vertices(), sheet.triangles()));
        assert!(back.tets.is_empty());
        assert_eq!(back.point_data[0].1, z);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
