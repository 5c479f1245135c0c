#!/usr/bin/env python3
"""Writes the example meshes shipped with pbdfit (standard library only, deterministic):

- beam.msh: a cantilever beam [0, 1] x [0, 0.2] x [0, 0.2] (x the long axis), 10 x 2 x 2 cubic cells of
  edge 0.1, each split into 5 tetrahedra; Gmsh MSH 4.1 ASCII with physical surfaces "clamp" (x = 0) and
  "tip" (x = 1) and physical volume "beam";
- cylinder.vtu: a cylinder of radius 0.25 along y from 0 to 1, a 6 x 8 x 6 grid on [-1, 1] x [0, 1] x
  [-1, 1] split into 5 tetrahedra per cell, mapped to the disc by the elliptical square-to-disc map
  (u sqrt(1 - w^2/2), w sqrt(1 - u^2/2)) scaled to radius 0.25; VTK XML ASCII;
- plate.obj: an unstructured sheet, the rectangle [0, 0.3] x [0, 0.1] in z = 0 (x the long side): points
  on its edges at jittered spacings and inside it by dart throwing (Python's random.Random(54), no two
  closer than 0.014 m), joined by a Delaunay triangulation (Bowyer-Watson); Wavefront OBJ, every triangle
  wound with its normal along +z.

The split is the unit cube's (methodology, section Scenes; crates/pbdfit-mesh/src/cube.rs): grid vertex
(i, j, k) has index i + (nx+1)(j + (ny+1)k); cells are visited k outermost, then j, then i; an even cell
(i + j + k of its lowest corner even) has central tetrahedron A and corner tetrahedra at the corners of
B, an odd one the reverse, so the face diagonals of neighbours coincide; every tetrahedron is positively
oriented (last two vertices swapped where needed).

Run from anywhere: python3 scenes/meshes/make_meshes.py
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

A = [(0, 0, 0), (1, 1, 0), (1, 0, 1), (0, 1, 1)]
B = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]


def signed_volume(p0, p1, p2, p3):
    a = [p1[i] - p0[i] for i in range(3)]
    b = [p2[i] - p0[i] for i in range(3)]
    c = [p3[i] - p0[i] for i in range(3)]
    cross = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    return (cross[0] * c[0] + cross[1] * c[1] + cross[2] * c[2]) / 6.0


def grid(nx, ny, nz, position):
    """Vertices position(i, j, k) and the 5-tetrahedra split of the nx x ny x nz cells."""
    index = lambda i, j, k: i + (nx + 1) * (j + (ny + 1) * k)
    verts = [position(i, j, k) for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    tets = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                corner = lambda c: index(i + c[0], j + c[1], k + c[2])
                central, corners = (A, B) if (i + j + k) % 2 == 0 else (B, A)
                local = [[corner(c) for c in central]]
                for c in corners:
                    flips = [tuple(1 - c[a] if a == axis else c[a] for a in range(3)) for axis in range(3)]
                    local.append([corner(c)] + [corner(f) for f in flips])
                for t in local:
                    if signed_volume(*(verts[v] for v in t)) < 0.0:
                        t[2], t[3] = t[3], t[2]
                    assert signed_volume(*(verts[v] for v in t)) > 0.0
                    tets.append(t)
    return verts, tets


def boundary_triangles(verts, tets, on_face, outward):
    """Faces used by one tetrahedron with all vertices on_face, oriented so the normal points outward."""
    count = {}
    for t in tets:
        for f in ([t[0], t[1], t[2]], [t[0], t[1], t[3]], [t[0], t[2], t[3]], [t[1], t[2], t[3]]):
            count[tuple(sorted(f))] = count.get(tuple(sorted(f)), 0) + 1
    tris = []
    for t in tets:
        for f in ([t[0], t[1], t[2]], [t[0], t[1], t[3]], [t[0], t[2], t[3]], [t[1], t[2], t[3]]):
            if count[tuple(sorted(f))] == 1 and all(on_face(verts[v]) for v in f):
                p = [verts[v] for v in f]
                a = [p[1][i] - p[0][i] for i in range(3)]
                b = [p[2][i] - p[0][i] for i in range(3)]
                n = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
                if sum(n[i] * outward[i] for i in range(3)) < 0.0:
                    f = [f[0], f[2], f[1]]
                tris.append(f)
    return tris


def beam():
    nx, ny, nz = 10, 2, 2
    verts, tets = grid(nx, ny, nz, lambda i, j, k: (i / 10, j / 10, k / 10))
    clamp = boundary_triangles(verts, tets, lambda p: p[0] == 0.0, (-1.0, 0.0, 0.0))
    tip = boundary_triangles(verts, tets, lambda p: p[0] == 1.0, (1.0, 0.0, 0.0))
    out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat"]
    out += ["$PhysicalNames", "3", '2 1 "clamp"', '2 2 "tip"', '3 3 "beam"', "$EndPhysicalNames"]
    # Entities: surface 1 (x = 0, physical 1), surface 2 (x = 1, physical 2), volume 1 (physical 3,
    # bounded by surfaces 1 and 2; the side faces are not entities of their own here).
    out += ["$Entities", "0 0 2 1"]
    out += ["1 0 0 0 0 0.2 0.2 1 1 0", "2 1 0 0 1 0.2 0.2 1 2 0", "1 0 0 0 1 0.2 0.2 1 3 2 -1 2"]
    out += ["$EndEntities"]
    n = len(verts)
    out += ["$Nodes", "1 %d 1 %d" % (n, n), "3 1 0 %d" % n]
    out += [str(v + 1) for v in range(n)]
    out += ["%r %r %r" % p for p in verts]
    out += ["$EndNodes"]
    total = len(clamp) + len(tip) + len(tets)
    out += ["$Elements", "3 %d 1 %d" % (total, total)]
    tag = 1
    for dim, entity, etype, elements in ((2, 1, 2, clamp), (2, 2, 2, tip), (3, 1, 4, tets)):
        out.append("%d %d %d %d" % (dim, entity, etype, len(elements)))
        for e in elements:
            out.append("%d %s" % (tag, " ".join(str(v + 1) for v in e)))
            tag += 1
    out += ["$EndElements"]
    with open(os.path.join(HERE, "beam.msh"), "w", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    return len(verts), len(tets), len(clamp)


def cylinder():
    nu, ny, nw = 6, 8, 6
    radius = 0.25

    def position(i, j, k):
        u = -1.0 + 2.0 * i / nu
        w = -1.0 + 2.0 * k / nw
        x = radius * u * math.sqrt(1.0 - w * w / 2.0)
        z = radius * w * math.sqrt(1.0 - u * u / 2.0)
        return (x, j / ny, z)

    verts, tets = grid(nu, ny, nw, position)
    pts = " ".join("%r %r %r" % p for p in verts)
    conn = " ".join(" ".join(str(v) for v in t) for t in tets)
    offsets = " ".join(str(4 * (n + 1)) for n in range(len(tets)))
    types = " ".join("10" for _ in tets)
    s = '<?xml version="1.0"?>\n'
    s += '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">\n'
    s += "  <UnstructuredGrid>\n"
    s += '    <Piece NumberOfPoints="%d" NumberOfCells="%d">\n' % (len(verts), len(tets))
    s += '      <Points>\n        <DataArray type="Float64" Name="Points" NumberOfComponents="3" format="ascii">'
    s += pts + "</DataArray>\n      </Points>\n      <Cells>\n"
    s += '        <DataArray type="Int64" Name="connectivity" format="ascii">' + conn + "</DataArray>\n"
    s += '        <DataArray type="Int64" Name="offsets" format="ascii">' + offsets + "</DataArray>\n"
    s += '        <DataArray type="UInt8" Name="types" format="ascii">' + types + "</DataArray>\n"
    s += "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n"
    with open(os.path.join(HERE, "cylinder.vtu"), "w", newline="\n") as f:
        f.write(s)
    volume = sum(signed_volume(*(verts[v] for v in t)) for t in tets)
    return len(verts), len(tets), volume


def delaunay(points):
    """Bowyer-Watson: the Delaunay triangles (index triples, counter-clockwise) of 2-D points in general
    enough position (no four on a circle but along the rectangle's edges, where either diagonal is Delaunay
    and the first found is kept)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    pts = list(points) + [(cx - 20 * span, cy - 10 * span), (cx + 20 * span, cy - 10 * span), (cx, cy + 20 * span)]
    n = len(points)

    def ccw(a, b, c):
        return (pts[b][0] - pts[a][0]) * (pts[c][1] - pts[a][1]) - (pts[b][1] - pts[a][1]) * (pts[c][0] - pts[a][0])

    def in_circle(t, p):
        a, b, c = (pts[v] for v in t)
        rows = [(q[0] - p[0], q[1] - p[1]) for q in (a, b, c)]
        m = [(dx, dy, dx * dx + dy * dy) for dx, dy in rows]
        det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
               + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
        return det > 1e-18 * span ** 4

    tris = [(n, n + 1, n + 2)]
    for i in range(n):
        bad = [t for t in tris if in_circle(t, pts[i])]
        edges = {}
        for t in bad:
            for e in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
                key = tuple(sorted(e))
                edges[key] = None if key in edges else e
        tris = [t for t in tris if t not in bad]
        for e in edges.values():
            if e is not None:
                tris.append((e[0], e[1], i))
    tris = [t for t in tris if max(t) < n]
    for t in tris:
        assert ccw(*t) > 0.0
    return tris


def plate():
    import random

    width, height, spacing = 0.3, 0.1, 0.014
    rng = random.Random(54)

    def edge(length, count):
        """count + 1 points on [0, length], the ends included, the inner ones jittered by a quarter step."""
        step = length / count
        return [0.0] + [step * (k + rng.uniform(-0.25, 0.25)) for k in range(1, count)] + [length]

    points = [(x, 0.0) for x in edge(width, 14)] + [(x, height) for x in edge(width, 13)[1:-1][::-1]]
    points += [(0.0, y) for y in edge(height, 5)[1:-1]] + [(width, y) for y in edge(height, 4)[1:-1]]
    points += [(width, height), (0.0, height)]
    boundary = len(points)
    tries = 0
    while tries < 20000:
        tries += 1
        p = (rng.uniform(0.01, width - 0.01), rng.uniform(0.01, height - 0.01))
        if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= spacing ** 2 for q in points):
            points.append(p)
    points = [(round(x, 6), round(y, 6)) for x, y in points]
    tris = delaunay(points)
    area = sum(abs((points[b][0] - points[a][0]) * (points[c][1] - points[a][1])
                   - (points[b][1] - points[a][1]) * (points[c][0] - points[a][0])) / 2 for a, b, c in tris)
    assert abs(area - width * height) < 1e-12, area
    out = ["# pbdfit's plate.obj (scenes/meshes/make_meshes.py): rectangle 0.3 x 0.1 m, unstructured, z = 0"]
    out += ["v %r %r 0.0" % p for p in points]
    out += ["f %d %d %d" % (a + 1, b + 1, c + 1) for a, b, c in tris]
    with open(os.path.join(HERE, "plate.obj"), "w", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    return len(points), boundary, len(tris), area


if __name__ == "__main__":
    print("beam.msh: %d vertices, %d tetrahedra, %d clamp triangles" % beam())
    print("plate.obj: %d vertices (%d on the boundary), %d triangles, area %.12f" % plate())
    print("cylinder.vtu: %d vertices, %d tetrahedra, volume %.12f (pi r^2 = %.12f)" % (*cylinder(), math.pi * 0.0625))
