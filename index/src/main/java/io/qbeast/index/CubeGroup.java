package io.qbeast.index;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Cubes whose rows of one write go to one file: a connected part of the tree, all members in the
 * subtree of {@code root}, the lowest common ancestor of the members. Readers prune the file by
 * the root's region, which is why a group may not mix unrelated subtrees.
 *
 * @param root lowest common ancestor of the members (a member itself when it has rows in the group)
 * @param members cubes with rows in the group, in pre-order
 * @param rows rows of this write in the members
 */
public record CubeGroup(CubeId root, List<CubeId> members, long rows)
{
    public CubeGroup
    {
        requireNonNull(root, "root is null");
        members = List.copyOf(requireNonNull(members, "members is null"));
        if (members.isEmpty()) {
            throw new IllegalArgumentException("A cube group has members");
        }
        for (int i = 0; i < members.size(); i++) {
            if (!root.isAncestorOrSelf(members.get(i))) {
                throw new IllegalArgumentException("Member %s is not in the subtree of %s".formatted(members.get(i), root));
            }
            if (i > 0 && members.get(i - 1).compareTo(members.get(i)) >= 0) {
                throw new IllegalArgumentException("Members are not distinct and in pre-order: " + members);
            }
        }
        if (!CubeId.lowestCommonAncestor(members.getFirst(), members.getLast()).equals(root)) {
            throw new IllegalArgumentException("Root %s is not the lowest common ancestor of %s".formatted(root, members));
        }
        if (rows < 0) {
            throw new IllegalArgumentException("Negative rows: " + rows);
        }
    }
}
