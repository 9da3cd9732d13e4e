package io.qbeast.index;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table written only through the index API, as the page sink does it: each write is assigned
 * against the state, rolled up, turned into the files' facts and added to the state. It also keeps
 * the ground truth the facts cannot show: every row's point, weight and cube.
 */
final class SimulatedTable
{
    final int dimensions;
    final long cubeSize;
    final long maxGroupRows;
    final BatchIndexer indexer;
    IndexState state;

    final List<double[]> points = new ArrayList<>();
    final List<Integer> weights = new ArrayList<>();
    final List<CubeId> cubeOfRow = new ArrayList<>();
    final List<Integer> fileOfRow = new ArrayList<>();
    final Map<CubeId, Long> trueRows = new HashMap<>();

    SimulatedTable(long revisionId, int dimensions, long cubeSize, long maxGroupRows, BatchIndexer indexer)
    {
        this.dimensions = dimensions;
        this.cubeSize = cubeSize;
        this.maxGroupRows = maxGroupRows;
        this.indexer = indexer;
        this.state = IndexState.empty(revisionId, dimensions, cubeSize);
    }

    CubeAssignment write(double[] coordinates, int[] batchWeights, int rows)
    {
        CubeAssignment assignment = indexer.assign(state, coordinates, batchWeights, rows);
        List<CubeGroup> groups = Rollup.group(assignment.cubes(), assignment.rowsPerCube(), maxGroupRows);
        int[] fileOfCube = new int[assignment.cubeCount()];
        List<FileFacts> files = new ArrayList<>();
        for (CubeGroup group : groups) {
            for (CubeId member : group.members()) {
                fileOfCube[assignment.indexOf(member)] = state.files().size() + files.size();
            }
            files.add(assignment.fileFacts(group));
        }
        for (int row = 0; row < rows; row++) {
            double[] point = new double[dimensions];
            System.arraycopy(coordinates, row * dimensions, point, 0, dimensions);
            points.add(point);
            weights.add(batchWeights[row]);
            int cube = assignment.cubeOfRow()[row];
            cubeOfRow.add(assignment.cubes().get(cube));
            fileOfRow.add(fileOfCube[cube]);
            trueRows.merge(assignment.cubes().get(cube), 1L, Long::sum);
        }
        state = state.plus(files);
        return assignment;
    }

    int rowCount()
    {
        return points.size();
    }
}
