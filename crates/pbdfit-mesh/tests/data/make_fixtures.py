#!/usr/bin/env python3
"""Writes the unit cube of pbdfit_mesh::unit_cube(1) (8 vertices, 5 tetrahedra) in every format the
importer reads, for the round-trip and mutation tests. Standard library only; deterministic.

Gmsh files also hold the two boundary triangles of the face y = 0 in physical surface 1 "clamp" and the
tetrahedra in physical volume 2 "body". Node tags are 1..8, element tags 1, 2 (triangles) and 3..7
(tetrahedra), so the tests can check that errors name the file's numbers.

Run from this directory: python3 make_fixtures.py
"""
import base64
import struct

VERTS = [(float(i), float(j), float(k)) for k in (0, 1) for j in (0, 1) for i in (0, 1)]
TETS = [[0, 3, 6, 5], [1, 0, 5, 3], [2, 3, 6, 0], [4, 5, 0, 6], [7, 6, 3, 5]]
TRIS = [[0, 1, 5], [0, 5, 4]]  # face y = 0, diagonal 0-5 as the central tetrahedron has it


def write(name, data):
    with open(name, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


PHYS_NAMES = '$PhysicalNames\n2\n2 1 "clamp"\n3 2 "body"\n$EndPhysicalNames\n'


def msh22_ascii():
    s = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" + PHYS_NAMES
    s += "$Nodes\n%d\n" % len(VERTS)
    s += "".join("%d %r %r %r\n" % (i + 1, *p) for i, p in enumerate(VERTS))
    s += "$EndNodes\n$Elements\n%d\n" % (len(TRIS) + len(TETS))
    tag = 1
    for t in TRIS:
        s += "%d 2 2 1 1 %s\n" % (tag, " ".join(str(v + 1) for v in t))
        tag += 1
    for t in TETS:
        s += "%d 4 2 2 1 %s\n" % (tag, " ".join(str(v + 1) for v in t))
        tag += 1
    return s + "$EndElements\n"


def msh22_binary(e="<"):
    b = b"$MeshFormat\n2.2 1 8\n" + struct.pack(e + "i", 1) + b"\n$EndMeshFormat\n" + PHYS_NAMES.encode()
    b += b"$Nodes\n%d\n" % len(VERTS)
    for i, p in enumerate(VERTS):
        b += struct.pack(e + "i3d", i + 1, *p)
    b += b"\n$EndNodes\n$Elements\n%d\n" % (len(TRIS) + len(TETS))
    b += struct.pack(e + "3i", 2, len(TRIS), 2)
    for n, t in enumerate(TRIS):
        b += struct.pack(e + "6i", n + 1, 1, 1, *(v + 1 for v in t))
    b += struct.pack(e + "3i", 4, len(TETS), 2)
    for n, t in enumerate(TETS):
        b += struct.pack(e + "7i", n + 3, 2, 1, *(v + 1 for v in t))
    return b + b"\n$EndElements\n"


def msh41(binary):
    # Encoders for the 4.1 numbers: size_t (8 bytes), int, double; ASCII writes tokens.
    if binary:
        def z(*v): return struct.pack("<%dQ" % len(v), *v)
        def i(*v): return struct.pack("<%di" % len(v), *v)
        def d(*v): return struct.pack("<%dd" % len(v), *v)
        nl = b""
    else:
        def z(*v): return (" ".join(str(x) for x in v) + " ").encode()
        i = z
        def d(*v): return (" ".join(repr(x) for x in v) + " ").encode()
        nl = b"\n"
    head = b"$MeshFormat\n4.1 %d 8\n" % (1 if binary else 0)
    if binary:
        head += struct.pack("<i", 1) + b"\n"
    b = head + b"$EndMeshFormat\n" + PHYS_NAMES.encode()
    # Entities: no points or curves, surface 1 (y = 0, physical 1), volume 1 (physical 2).
    b += b"$Entities\n" + z(0, 0, 1, 1) + nl
    b += i(1) + d(0.0, 0.0, 0.0, 1.0, 0.0, 1.0) + z(1) + i(1) + z(0) + nl
    b += i(1) + d(0.0, 0.0, 0.0, 1.0, 1.0, 1.0) + z(1) + i(2) + z(0) + nl
    b += (b"\n" if binary else b"") + b"$EndEntities\n"
    b += b"$Nodes\n" + z(1, len(VERTS), 1, len(VERTS)) + nl
    b += i(3, 1, 0) + z(len(VERTS)) + nl
    for n in range(len(VERTS)):
        b += z(n + 1) + nl
    for p in VERTS:
        b += d(*p) + nl
    b += (b"\n" if binary else b"") + b"$EndNodes\n"
    b += b"$Elements\n" + z(2, len(TRIS) + len(TETS), 1, len(TRIS) + len(TETS)) + nl
    b += i(2, 1, 2) + z(len(TRIS)) + nl
    for n, t in enumerate(TRIS):
        b += z(n + 1, *(v + 1 for v in t)) + nl
    b += i(3, 1, 4) + z(len(TETS)) + nl
    for n, t in enumerate(TETS):
        b += z(n + 3, *(v + 1 for v in t)) + nl
    return b + (b"\n" if binary else b"") + b"$EndElements\n"


def vtu(binary):
    arrays = {
        "points": ("Float64", 3, [c for p in VERTS for c in p], "d"),
        "connectivity": ("Int64", 1, [v for t in TETS for v in t], "q"),
        "offsets": ("Int64", 1, [4 * (n + 1) for n in range(len(TETS))], "q"),
        "types": ("UInt8", 1, [10] * len(TETS), "B"),
    }

    def array(key, name):
        ty, comps, vals, fmt = arrays[key]
        attrs = 'type="%s" Name="%s"%s' % (ty, name, ' NumberOfComponents="3"' if comps == 3 else "")
        if binary:
            raw = struct.pack("<%d%s" % (len(vals), fmt), *vals)
            # One base64 stream: UInt32 byte count, then the data (what VTK and vtkio read).
            text = base64.b64encode(struct.pack("<I", len(raw)) + raw).decode()
            return '<DataArray %s format="binary">%s</DataArray>\n' % (attrs, text)
        text = " ".join(repr(v) if fmt == "d" else str(v) for v in vals)
        return '<DataArray %s format="ascii">%s</DataArray>\n' % (attrs, text)

    s = '<?xml version="1.0"?>\n'
    s += '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt32">\n'
    s += "<UnstructuredGrid>\n"
    s += '<Piece NumberOfPoints="%d" NumberOfCells="%d">\n' % (len(VERTS), len(TETS))
    s += "<Points>\n" + array("points", "Points") + "</Points>\n"
    s += "<Cells>\n" + array("connectivity", "connectivity") + array("offsets", "offsets")
    s += array("types", "types") + "</Cells>\n"
    return s + "</Piece>\n</UnstructuredGrid>\n</VTKFile>\n"


def legacy_vtk(binary):
    b = b"# vtk DataFile Version 3.0\nunit cube\n" + (b"BINARY\n" if binary else b"ASCII\n")
    b += b"DATASET UNSTRUCTURED_GRID\nPOINTS %d double\n" % len(VERTS)
    if binary:
        b += struct.pack(">%dd" % (3 * len(VERTS)), *(c for p in VERTS for c in p)) + b"\n"
    else:
        b += "".join("%r %r %r\n" % p for p in VERTS).encode()
    b += b"CELLS %d %d\n" % (len(TETS), 5 * len(TETS))
    if binary:
        b += struct.pack(">%di" % (5 * len(TETS)), *(x for t in TETS for x in [4] + t)) + b"\n"
    else:
        b += "".join("4 %d %d %d %d\n" % tuple(t) for t in TETS).encode()
    b += b"CELL_TYPES %d\n" % len(TETS)
    if binary:
        b += struct.pack(">%di" % len(TETS), *([10] * len(TETS))) + b"\n"
    else:
        b += b"10\n" * len(TETS)
    return b


def tetgen(first):
    # The 1-based pair carries an attribute, boundary markers and comments, as TetGen writes them.
    extra = first == 1
    node = "# unit cube\n%d 3 %d %d\n" % (len(VERTS), int(extra), int(extra))
    for n, p in enumerate(VERTS):
        node += "%d %r %r %r" % (n + first, *p) + (" 0.5 1" if extra else "") + "\n"
    ele = "%d 4 %d\n" % (len(TETS), int(extra))
    for n, t in enumerate(TETS):
        ele += "%d %s" % (n + first, " ".join(str(v + first) for v in t)) + (" 7" if extra else "") + "\n"
    if extra:
        ele += "# Generated by make_fixtures.py\n"
    return node, ele


write("cube22.msh", msh22_ascii())
write("cube22_bin.msh", msh22_binary())
write("cube22_be.msh", msh22_binary(">"))  # big-endian binary, as a big-endian machine writes it
write("cube41.msh", msh41(False))
write("cube41_bin.msh", msh41(True))
write("cube.vtu", vtu(False))
write("cube_b64.vtu", vtu(True))
write("cube.vtk", legacy_vtk(False))
write("cube_bin.vtk", legacy_vtk(True))
for first in (0, 1):
    node, ele = tetgen(first)
    write("cube%d.node" % first, node)
    write("cube%d.ele" % first, ele)
