package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.ResultTable.Metric;
import io.qbeast.benchmarks.e2e.ResultTable.Stats;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A grouped bar chart as SVG text: one group per item, one bar per variant (the median), a
 * whisker from the minimum to the maximum repetition. Linear or logarithmic value axis.
 */
final class SvgBarChart
{
    private static final String[] COLORS = {"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
    private static final int LEFT = 90;
    private static final int RIGHT = 20;
    private static final int TOP = 50;
    private static final int BOTTOM = 110;
    private static final int PLOT_HEIGHT = 300;
    private static final int LEGEND_SPACING = 230;

    private SvgBarChart() {}

    static String render(ResultTable table, Metric metric)
    {
        List<String> items = table.items();
        List<String> variants = table.variants();
        int barWidth = Math.max(6, Math.min(28, 360 / Math.max(1, items.size() * variants.size())));
        int groupWidth = barWidth * variants.size() + 14;
        // room for three legend entries per line
        int plotWidth = Math.max(3 * LEGEND_SPACING, groupWidth * items.size());
        int width = LEFT + plotWidth + RIGHT;
        int height = TOP + PLOT_HEIGHT + BOTTOM + 20 * ((variants.size() + 2) / 3);

        double max = 0;
        double minPositive = Double.MAX_VALUE;
        for (String item : items) {
            for (String variant : variants) {
                Optional<Stats> stats = table.stats(item, variant, metric.name());
                if (stats.isPresent()) {
                    max = Math.max(max, stats.get().max());
                    for (double value : new double[] {stats.get().min(), stats.get().median(), stats.get().max()}) {
                        if (value > 0) {
                            minPositive = Math.min(minPositive, value);
                        }
                    }
                }
            }
        }
        boolean log = table.isLogScaleCharts() && minPositive != Double.MAX_VALUE && max > 0;
        Axis axis = log ? Axis.log(minPositive, max) : Axis.linear(max);

        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n".formatted(width, height, width, height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append("<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>\n".formatted(LEFT, escape(table.name())));
        svg.append("<text x=\"%d\" y=\"38\" font-size=\"12\">%s%s (median, whiskers min–max)</text>\n".formatted(LEFT, escape(metric.label()), log ? ", log scale" : ""));

        // grid and value labels
        for (double tick : axis.ticks()) {
            double y = TOP + PLOT_HEIGHT - axis.position(tick) * PLOT_HEIGHT;
            svg.append("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n".formatted(LEFT, y, LEFT + plotWidth, y));
            svg.append("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n".formatted(LEFT - 6, y + 4, escape(SuiteReport.format(tick, metric.unit()))));
        }
        svg.append("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n".formatted(LEFT, TOP + PLOT_HEIGHT, LEFT + plotWidth, TOP + PLOT_HEIGHT));
        svg.append("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n".formatted(LEFT, TOP, LEFT, TOP + PLOT_HEIGHT));

        double groupSpace = (double) plotWidth / Math.max(1, items.size());
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i);
            double groupStart = LEFT + i * groupSpace + (groupSpace - barWidth * variants.size()) / 2;
            for (int v = 0; v < variants.size(); v++) {
                Optional<Stats> stats = table.stats(item, variants.get(v), metric.name());
                if (stats.isEmpty()) {
                    continue;
                }
                double x = groupStart + v * barWidth;
                double top = TOP + PLOT_HEIGHT - axis.position(stats.get().median()) * PLOT_HEIGHT;
                svg.append("<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s / %s: %s</title></rect>\n".formatted(
                        x, top, barWidth - 2, TOP + PLOT_HEIGHT - top, COLORS[v % COLORS.length],
                        escape(item), escape(variants.get(v)), escape(SuiteReport.formatStats(stats.get(), metric.unit()))));
                if (stats.get().count() > 1) {
                    double low = TOP + PLOT_HEIGHT - axis.position(stats.get().min()) * PLOT_HEIGHT;
                    double high = TOP + PLOT_HEIGHT - axis.position(stats.get().max()) * PLOT_HEIGHT;
                    double center = x + (barWidth - 2) / 2.0;
                    svg.append("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n".formatted(center, low, center, high));
                }
            }
            double labelX = LEFT + i * groupSpace + groupSpace / 2;
            double labelY = TOP + PLOT_HEIGHT + 12;
            svg.append("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-35 %.1f %.1f)\">%s</text>\n".formatted(labelX, labelY, labelX, labelY, escape(item)));
        }

        // legend
        int legendY = TOP + PLOT_HEIGHT + BOTTOM - 10;
        for (int v = 0; v < variants.size(); v++) {
            int x = LEFT + (v % 3) * LEGEND_SPACING;
            int y = legendY + (v / 3) * 18;
            svg.append("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n".formatted(x, y - 10, COLORS[v % COLORS.length]));
            svg.append("<text x=\"%d\" y=\"%d\">%s</text>\n".formatted(x + 16, y, escape(variants.get(v))));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static String escape(String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private record Axis(boolean log, double low, double high)
    {
        static Axis linear(double max)
        {
            return new Axis(false, 0, max <= 0 ? 1 : niceCeiling(max));
        }

        static Axis log(double minPositive, double max)
        {
            double low = Math.pow(10, Math.floor(Math.log10(minPositive)));
            double high = Math.pow(10, Math.ceil(Math.log10(max)));
            if (high <= low) {
                high = low * 10;
            }
            return new Axis(true, low, high);
        }

        double position(double value)
        {
            if (log) {
                if (value <= 0) {
                    return 0;
                }
                return Math.max(0, (Math.log10(value) - Math.log10(low)) / (Math.log10(high) - Math.log10(low)));
            }
            return value / high;
        }

        double[] ticks()
        {
            if (log) {
                int decades = (int) Math.round(Math.log10(high / low));
                double[] ticks = new double[decades + 1];
                for (int i = 0; i <= decades; i++) {
                    ticks[i] = low * Math.pow(10, i);
                }
                return ticks;
            }
            double[] ticks = new double[6];
            for (int i = 0; i <= 5; i++) {
                ticks[i] = high * i / 5;
            }
            return ticks;
        }

        private static double niceCeiling(double value)
        {
            double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
            for (double step : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
                if (step * magnitude >= value) {
                    return step * magnitude;
                }
            }
            return 10 * magnitude;
        }

        @Override
        public String toString()
        {
            return String.format(Locale.ROOT, "Axis[%s %f..%f]", log ? "log" : "linear", low, high);
        }
    }
}
