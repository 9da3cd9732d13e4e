package io.qbeast.index;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Packs the cubes one write touched into file groups of bounded size.
 *
 * <p>Bottom-up over the tree of the written cubes (and their ancestors): each subtree hands its
 * parent an open group of at most {@code maxGroupRows} rows. A parent takes its own rows plus its
 * children's open groups if they fit together; otherwise it packs them first-fit-decreasing into
 * groups of at most {@code maxGroupRows}, closes all of them but the smallest, and hands that one
 * up. So every group is the rows of some cubes of one subtree (its root is the lowest common
 * ancestor of its members, which readers use to prune the file), no group exceeds the cap unless
 * a single cube alone does, and small cubes merge up towards the root, where regions are larger
 * but the files are few. Qbeast's rollup merged every small child into the parent regardless of
 * the parent's size, which allowed files of (2^D + 1) cube sizes.
 */
public final class Rollup
{
    private Rollup() {}

    /**
     * @param cubes distinct cubes of one tree, in pre-order (as {@link CubeAssignment#cubes()})
     * @param rowsPerCube rows per cube
     * @param maxGroupRows the cap on rows per group
     * @return groups in pre-order of their first member
     */
    public static List<CubeGroup> group(List<CubeId> cubes, long[] rowsPerCube, long maxGroupRows)
    {
        requireNonNull(cubes, "cubes is null");
        requireNonNull(rowsPerCube, "rowsPerCube is null");
        if (cubes.size() != rowsPerCube.length) {
            throw new IllegalArgumentException("%s cubes but %s row counts".formatted(cubes.size(), rowsPerCube.length));
        }
        if (maxGroupRows <= 0) {
            throw new IllegalArgumentException("maxGroupRows must be positive: " + maxGroupRows);
        }
        if (cubes.isEmpty()) {
            return List.of();
        }
        for (int i = 1; i < cubes.size(); i++) {
            if (cubes.get(i - 1).compareTo(cubes.get(i)) >= 0) {
                throw new IllegalArgumentException("Cubes are not distinct and in pre-order at " + cubes.get(i));
            }
        }

        // nodes: the written cubes and all their ancestors; children in pre-order
        Map<CubeId, Node> nodes = new HashMap<>();
        List<Node> preOrder = new ArrayList<>();
        for (int i = 0; i < cubes.size(); i++) {
            CubeId cube = cubes.get(i);
            Node node = node(nodes, preOrder, cube);
            node.ownRows = rowsPerCube[i];
            if (rowsPerCube[i] < 0) {
                throw new IllegalArgumentException("Negative rows for cube " + cube);
            }
        }
        preOrder.sort(Comparator.comparing(node -> node.cube));

        List<Part> closed = new ArrayList<>();
        Node top = null;
        for (int i = preOrder.size() - 1; i >= 0; i--) {
            Node node = preOrder.get(i);
            node.open = pack(node, maxGroupRows, closed);
            if (node.cube.isRoot()) {
                top = node;
            }
        }
        if (top != null && top.open != null) {
            closed.add(top.open);
        }

        List<CubeGroup> groups = new ArrayList<>(closed.size());
        for (Part part : closed) {
            part.members.sort(Comparator.naturalOrder());
            CubeId root = CubeId.lowestCommonAncestor(part.members.getFirst(), part.members.getLast());
            groups.add(new CubeGroup(root, part.members, part.rows));
        }
        groups.sort(Comparator.comparing(group -> group.members().getFirst()));
        return List.copyOf(groups);
    }

    private static Part pack(Node node, long maxGroupRows, List<Part> closed)
    {
        List<Part> parts = new ArrayList<>();
        if (node.ownRows > maxGroupRows) {
            closed.add(new Part(node.cube, node.ownRows));
        }
        else if (node.ownRows > 0) {
            parts.add(new Part(node.cube, node.ownRows));
        }
        long total = 0;
        for (Node child : node.children) {
            if (child.open != null) {
                parts.add(child.open);
            }
        }
        for (Part part : parts) {
            total += part.rows;
        }
        if (parts.isEmpty()) {
            return null;
        }
        if (total <= maxGroupRows) {
            return Part.merge(parts);
        }
        // first-fit decreasing; keep the smallest bin open so it can still merge upwards
        parts.sort(Comparator.comparingLong((Part part) -> part.rows).reversed().thenComparing(part -> part.members.getFirst()));
        List<List<Part>> bins = new ArrayList<>();
        List<Long> binRows = new ArrayList<>();
        for (Part part : parts) {
            int bin = 0;
            while (bin < bins.size() && binRows.get(bin) + part.rows > maxGroupRows) {
                bin++;
            }
            if (bin == bins.size()) {
                bins.add(new ArrayList<>());
                binRows.add(0L);
            }
            bins.get(bin).add(part);
            binRows.set(bin, binRows.get(bin) + part.rows);
        }
        int smallest = 0;
        for (int bin = 1; bin < bins.size(); bin++) {
            if (binRows.get(bin) < binRows.get(smallest)) {
                smallest = bin;
            }
        }
        for (int bin = 0; bin < bins.size(); bin++) {
            if (bin != smallest) {
                closed.add(Part.merge(bins.get(bin)));
            }
        }
        return Part.merge(bins.get(smallest));
    }

    private static Node node(Map<CubeId, Node> nodes, List<Node> preOrder, CubeId cube)
    {
        Node node = nodes.get(cube);
        if (node == null) {
            node = new Node(cube);
            nodes.put(cube, node);
            preOrder.add(node);
            if (!cube.isRoot()) {
                node(nodes, preOrder, cube.parent()).children.add(node);
            }
        }
        return node;
    }

    private static final class Node
    {
        final CubeId cube;
        final List<Node> children = new ArrayList<>();
        long ownRows;
        Part open;

        Node(CubeId cube)
        {
            this.cube = cube;
        }
    }

    private static final class Part
    {
        final List<CubeId> members;
        final long rows;

        Part(CubeId cube, long rows)
        {
            this(new ArrayList<>(List.of(cube)), rows);
        }

        Part(List<CubeId> members, long rows)
        {
            this.members = members;
            this.rows = rows;
        }

        static Part merge(List<Part> parts)
        {
            if (parts.size() == 1) {
                return parts.getFirst();
            }
            List<CubeId> members = new ArrayList<>();
            long rows = 0;
            for (Part part : parts) {
                members.addAll(part.members);
                rows += part.rows;
            }
            return new Part(members, rows);
        }
    }
}
