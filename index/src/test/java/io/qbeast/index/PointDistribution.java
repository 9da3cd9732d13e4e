package io.qbeast.index;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Shapes of indexed data the tests run the index on; every one is generated from a seed. */
enum PointDistribution
{
    UNIFORM {
        @Override
        void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions)
        {
            for (int i = 0; i < rows * dimensions; i++) {
                coordinates[i] = random.nextDouble();
            }
        }
    },
    /** Zipf(1.1) ranks over 2^20 values per dimension: a few values hold most rows, near 0. */
    ZIPF {
        @Override
        void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions)
        {
            double[] cdf = zipfCdf(1 << 20, 1.1);
            for (int i = 0; i < rows * dimensions; i++) {
                int rank = Arrays.binarySearch(cdf, random.nextDouble());
                rank = rank < 0 ? -rank - 1 : rank;
                coordinates[i] = Math.min(rank, cdf.length - 1) / (double) cdf.length;
            }
        }
    },
    /** Eight tight Gaussian clusters, the same ones for every seed (appends keep the shape of the table). */
    CLUSTERED {
        @Override
        void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions)
        {
            double[][] centers = new double[8][dimensions];
            double[] sigmas = new double[8];
            SplittableRandom shape = new SplittableRandom(dimensions);
            for (int c = 0; c < 8; c++) {
                for (int j = 0; j < dimensions; j++) {
                    centers[c][j] = shape.nextDouble();
                }
                sigmas[c] = 0.0001 + shape.nextDouble() * 0.01;
            }
            for (int row = 0; row < rows; row++) {
                int c = random.nextInt(8);
                for (int j = 0; j < dimensions; j++) {
                    coordinates[row * dimensions + j] = clamp(centers[c][j] + gaussian(random) * sigmas[c]);
                }
            }
        }
    },
    /** Twenty distinct points repeated, the same ones for every seed. */
    DUPLICATES {
        @Override
        void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions)
        {
            double[] points = new double[20 * dimensions];
            UNIFORM.fill(new SplittableRandom(dimensions), points, 20, dimensions);
            for (int row = 0; row < rows; row++) {
                System.arraycopy(points, random.nextInt(20) * dimensions, coordinates, row * dimensions, dimensions);
            }
        }
    },
    /** Every row at the NULL coordinate 0 in every dimension. */
    ALL_SAME {
        @Override
        void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions)
        {
            Arrays.fill(coordinates, 0, rows * dimensions, 0.0);
        }
    },
    /** Dimension 0 holds one value, the others are uniform. */
    SINGLE_VALUE_COLUMN {
        @Override
        void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions)
        {
            UNIFORM.fill(random, coordinates, rows, dimensions);
            for (int row = 0; row < rows; row++) {
                coordinates[row * dimensions] = 0.5;
            }
        }
    };

    abstract void fill(SplittableRandom random, double[] coordinates, int rows, int dimensions);

    double[] generate(long seed, int rows, int dimensions)
    {
        double[] coordinates = new double[rows * dimensions];
        fill(new SplittableRandom(seed), coordinates, rows, dimensions);
        return coordinates;
    }

    private static double clamp(double x)
    {
        return Math.min(Math.max(x, 0.0), Math.nextDown(1.0));
    }

    private static double gaussian(SplittableRandom random)
    {
        // Box-Muller
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    private static double[] zipfCdf(int n, double s)
    {
        double[] cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
        return cdf;
    }
}
