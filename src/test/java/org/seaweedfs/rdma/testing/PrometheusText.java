package org.seaweedfs.rdma.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape of {@code /metrics} (Prometheus text format, as the product serves it), for tests that prove which path
 * served a read by the counters of the parts that did the work rather than by what the read path says of itself.
 */
public final class PrometheusText {

    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    private record Sample(String name, Map<String, String> labels, double value) {
    }

    private final String text;
    private final List<Sample> samples = new ArrayList<>();

    private PrometheusText(String text) {
        this.text = text;
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
    }

    public static PrometheusText parse(String text) {
        return new PrometheusText(text);
    }

    /**
     * The sum of the samples named {@code name} whose labels include {@code labels} ("name=value" each); fails when
     * there is none, so that a renamed meter cannot read as 0.
     */
    public long sum(String name, String... labels) {
        double sum = 0;
        boolean found = false;
        for (Sample s : samples) {
            if (s.name.equals(name) && matches(s.labels, labels)) {
                sum += s.value;
                found = true;
            }
        }
        if (!found) {
            throw new AssertionError("no sample " + name + " " + List.of(labels) + " in\n" + text);
        }
        return Math.round(sum);
    }

    private static boolean matches(Map<String, String> have, String[] want) {
        for (String pair : want) {
            int eq = pair.indexOf('=');
            if (!pair.substring(eq + 1).equals(have.get(pair.substring(0, eq)))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return text;
    }
}
