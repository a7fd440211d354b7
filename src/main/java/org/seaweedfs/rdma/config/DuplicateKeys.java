package org.seaweedfs.rdma.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Finds a key or section a file gives twice, by the dotted name both spellings share ({@code http.port} and
 * {@code http: {port: ..}} are one key). YAML would let the last one win silently, so a whole section written twice
 * (two {@code http:} blocks) would lose the first; both places are named instead.
 */
final class DuplicateKeys {

    private final String origin;
    private final Map<String, Integer> lines = new HashMap<>();
    private final List<String> problems = new ArrayList<>();

    private DuplicateKeys(String origin) {
        this.origin = origin;
    }

    /** One problem per name given twice, naming the name and both lines; empty when every name is given once. */
    static List<String> in(Node root, String origin) {
        DuplicateKeys keys = new DuplicateKeys(origin);
        if (root instanceof MappingNode map) {
            keys.walk("", map);
        }
        return keys.problems;
    }

    private void walk(String prefix, MappingNode map) {
        for (NodeTuple tuple : map.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                continue;
            }
            String name = prefix + key.getValue();
            int line = key.getStartMark().getLine() + 1;
            Integer first = lines.putIfAbsent(name, line);
            if (first != null) {
                problems.add(name + ": given twice in " + origin + ", on lines " + first + " and " + line
                        + " (give it once)");
            } else if (tuple.getValueNode() instanceof MappingNode section && ConfigSchema.isSection(name)) {
                walk(name + ".", section);
            }
        }
    }
}
