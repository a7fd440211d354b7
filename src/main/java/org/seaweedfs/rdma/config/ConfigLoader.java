package org.seaweedfs.rdma.config;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Builds an {@link RdmaConfig} from a YAML file (nested sections or dotted keys) and environment
 * variables, which override the file key by key. Lists in the environment are comma-separated; an
 * empty value resets a key to its default. Every problem found is reported at once, each naming its
 * key (and the variable when it came from the environment); unknown keys are rejected with the
 * closest known one as a suggestion.
 */
public final class ConfigLoader {

    private ConfigLoader() {
    }

    /** Reads {@code path} without blocking the caller and applies the process environment. */
    public static Future<RdmaConfig> load(Vertx vertx, String path) {
        return vertx.fileSystem().readFile(path)
                .recover(e -> Future.failedFuture(new ConfigException(
                        List.of("--conf " + path + ": cannot read the file (" + e.getMessage() + ")"))))
                .map(buffer -> parse(buffer.toString(), path, System.getenv()));
    }

    /** Only the environment (and the defaults). */
    public static RdmaConfig fromEnvironment(Map<String, String> env) {
        return parse("", "(no file)", env);
    }

    /**
     * @param yaml   the file's text (may be empty)
     * @param origin the file name, for messages
     * @param env    environment variables; only those starting with {@code SEAWEEDFS_RDMA_} are read
     * @throws ConfigException naming every problem
     */
    public static RdmaConfig parse(String yaml, String origin, Map<String, String> env) {
        List<String> problems = new ArrayList<>();
        Map<String, Object> raw = new HashMap<>();
        Map<String, String> from = new HashMap<>();
        readYaml(yaml, origin, raw, problems);
        readEnvironment(env, raw, from, problems);

        Map<String, Object> values = new HashMap<>();
        for (ConfigKey key : ConfigSchema.KEYS) {
            Object value = raw.get(key.name());
            if (value == null || (from.containsKey(key.name()) && String.valueOf(value).isBlank())) {
                values.put(key.name(), key.defaultValue());
                continue;
            }
            try {
                values.put(key.name(), key.parse(value));
            } catch (IllegalArgumentException e) {
                String where = from.containsKey(key.name()) ? " (from " + from.get(key.name()) + ")" : "";
                problems.add(key.name() + where + ": " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        RdmaConfig config = build(new Values(values));
        crossCheck(config, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }

    /** The environment variable that overrides {@code key} (for documentation and messages). */
    public static String environmentVariable(String key) {
        return ConfigSchema.byName(key).orElseThrow(() -> new IllegalArgumentException("unknown key " + key)).envName();
    }

    private static void readYaml(String text, String origin, Map<String, Object> raw, List<String> problems) {
        Object root;
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            Yaml yaml = new Yaml(new SafeConstructor(options));
            List<String> duplicates = DuplicateKeys.in(yaml.compose(new StringReader(text)), origin);
            if (!duplicates.isEmpty()) {
                problems.addAll(duplicates);
                return;
            }
            root = yaml.load(text);
        } catch (MarkedYAMLException e) {
            // file:line:column, as editors and compilers name a place
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String where = mark == null ? "" : ":" + (mark.getLine() + 1) + ":" + (mark.getColumn() + 1);
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage().lines().findFirst().orElse("");
            problems.add(origin + where + ": not valid YAML: " + problem
                    + (e.getContext() != null ? " (" + e.getContext() + ")" : ""));
            return;
        } catch (YAMLException e) {
            problems.add(origin + ": not valid YAML: " + e.getMessage().lines().findFirst().orElse(""));
            return;
        }
        if (root == null) {
            return;
        }
        if (!(root instanceof Map<?, ?> map)) {
            problems.add(origin + ": expected a map of keys at the top level");
            return;
        }
        flatten("", map, raw, problems);
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, Object> raw, List<String> problems) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String name = prefix + e.getKey();
            if (ConfigSchema.byName(name).isPresent()) {
                raw.put(name, e.getValue());
            } else if (ConfigSchema.isSection(name)) {
                if (e.getValue() instanceof Map<?, ?> section) {
                    flatten(name + ".", section, raw, problems);
                } else if (e.getValue() != null) {
                    problems.add(name + ": expected a section of keys, got '" + e.getValue() + "'");
                }
            } else {
                problems.add(ConfigSchema.retired(name).orElseGet(() ->
                        unknown(name, ConfigSchema.namesAndSections())));
            }
        }
    }

    private static void readEnvironment(Map<String, String> env, Map<String, Object> raw, Map<String, String> from,
                                        List<String> problems) {
        env.entrySet().stream()
                .filter(e -> e.getKey().startsWith(ConfigKey.ENV_PREFIX))
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> ConfigSchema.byEnv(e.getKey()).ifPresentOrElse(key -> {
                    raw.put(key.name(), e.getValue());
                    from.put(key.name(), e.getKey());
                }, () -> problems.add(ConfigSchema.retired(e.getKey())
                        .orElseGet(() -> unknown(e.getKey(), ConfigSchema.envNames())))));
    }

    private static String unknown(String name, Iterable<String> known) {
        return name + ": unknown key"
                + ConfigSchema.suggest(name, known).map(s -> " (did you mean " + s + "?)").orElse("");
    }

    private static RdmaConfig build(Values v) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        v.strings("roles").forEach(r -> roles.add(Role.valueOf(r.toUpperCase(Locale.ROOT))));
        List<Fallback> fallback = new ArrayList<>();
        v.strings("sidecar.fallback").forEach(f ->
                fallback.add(Fallback.valueOf(f.toUpperCase(Locale.ROOT).replace('-', '_'))));
        return new RdmaConfig(
                roles,
                new HttpConfig(v.string("http.host"),
                        v.get("http.port") == null ? HttpConfig.defaultPort(roles) : v.integer("http.port"),
                        v.integer("http.instances"),
                        v.optionalString("http.jwtReadKey"),
                        v.duration("http.headerTimeout"), v.duration("http.idleTimeout"),
                                v.integer("http.maxConnections"),
                        v.networks("http.readSliceClients"), (Boolean) v.get("http.readSliceFallback"),
                        NetworkTransport.parse(v.string("http.transport")), v.optionalString("http.tlsCert"),
                        v.optionalString("http.tlsKey")),
                new AgentConfig((HostPort) v.get("agent.listen"), v.strings("agent.volumeDirs"),
                        (Boolean) v.get("agent.offset5"), v.optionalString("agent.authToken"),
                        v.string("agent.volumeMemory").toLowerCase(Locale.ROOT), v.number("agent.volumeMemoryLimit"),
                        v.optionalString("agent.indexCacheDir"), v.optionalString("agent.volumeIdxDir")),
                new SidecarConfig(
                        v.hostPorts("sidecar.agents"),
                        (HostPort) v.get("sidecar.master"),
                        v.hostPorts("sidecar.volumeServers"),
                        v.optionalString("sidecar.authToken"),
                        v.number("sidecar.maxNeedleBytes"),
                        new SidecarConfig.BufferPool(v.integer("sidecar.bufferPool.bufferSize"),
                                v.number("sidecar.bufferPool.totalBytes")),
                        v.integer("sidecar.maxInFlightReads"),
                        v.duration("sidecar.readTimeout"),
                        new SidecarConfig.Ping(v.duration("sidecar.ping.interval")),
                        new SidecarConfig.Breaker(v.duration("sidecar.breaker.openDuration")),
                        fallback,
                        v.number("sidecar.locationCache.maxBytes"),
                        EcRebuild.valueOf(v.string("sidecar.ecRebuild").toUpperCase(Locale.ROOT)),
                        v.optionalString("sidecar.securityToml"),
                        new SidecarConfig.Batch(v.integer("sidecar.batch.maxFids"),
                                v.number("sidecar.batch.maxRequestBytes"), v.integer("sidecar.batch.window"),
                                v.number("sidecar.batch.maxReplyBytes"))),
                new UcxConfig(v.strings("ucx.tls"), v.strings("ucx.netDevices"),
                        v.string("ucx.errorHandling").toLowerCase(Locale.ROOT),
                        v.string("ucx.onDemandPaging").toLowerCase(Locale.ROOT)),
                new MetricsConfig((Boolean) v.get("metrics.enabled")),
                new LoggingConfig(v.string("logging.level").toLowerCase(Locale.ROOT),
                        v.string("logging.format").toLowerCase(Locale.ROOT)),
                new ClusterConfig((Boolean) v.get("cluster.enabled"), v.string("cluster.host").strip(),
                        v.integer("cluster.port"), v.hostPorts("cluster.members")),
                v.integer("idlePollMicros"));
    }

    /** Rules that relate several keys. */
    private static void crossCheck(RdmaConfig c, List<String> problems) {
        if (c.roles().isEmpty()) {
            problems.add("roles: must name at least one of agent, sidecar");
        }
        if (c.runs(Role.AGENT) && c.agent().volumeDirs().isEmpty()) {
            problems.add("agent.volumeDirs: the agent role needs at least one volume directory");
        }
        ClusterConfig cluster = c.cluster();
        if (cluster.enabled() && (cluster.host().isEmpty() || cluster.host().equals("0.0.0.0")
                || cluster.host().equals("::"))) {
            problems.add("cluster.host: must be the address other members reach this one at, not '"
                    + cluster.host() + "'");
        }
        HttpConfig http = c.http();
        if ((http.tlsCert() == null) != (http.tlsKey() == null)) {
            problems.add((http.tlsCert() == null ? "http.tlsCert" : "http.tlsKey") + ": unset, but "
                    + (http.tlsCert() == null ? "http.tlsKey" : "http.tlsCert")
                    + " is set: the HTTPS listener needs both the certificate and its key");
        }
        SidecarConfig s = c.sidecar();
        if (c.runs(Role.SIDECAR) && s.agents().isEmpty() && s.master() == null) {
            problems.add("sidecar.agents: empty and sidecar.master is unset, so the sidecar cannot find any agent");
        }
        if (s.bufferPool().totalBytes() < s.bufferPool().bufferSize()) {
            problems.add("sidecar.bufferPool.totalBytes: must be at least sidecar.bufferPool.bufferSize ("
                    + s.bufferPool().bufferSize() + ")");
        }
        if (new HashSet<>(s.fallback()).size() != s.fallback().size()) {
            problems.add("sidecar.fallback: lists a path twice");
        }
    }

    /** Parsed values by key, read with the type the schema gave them. */
    private record Values(Map<String, Object> map) {

        Object get(String key) {
            return map.get(key);
        }

        String string(String key) {
            return (String) map.get(key);
        }

        String optionalString(String key) {
            String s = string(key);
            return s == null || s.isEmpty() ? null : s;
        }

        long number(String key) {
            return (Long) map.get(key);
        }

        int integer(String key) {
            return Math.toIntExact(number(key));
        }

        Duration duration(String key) {
            return (Duration) map.get(key);
        }

        @SuppressWarnings("unchecked")
        List<String> strings(String key) {
            return ((List<Object>) map.get(key)).stream().map(String::valueOf).toList();
        }

        @SuppressWarnings("unchecked")
        List<ClientNetwork> networks(String key) {
            return (List<ClientNetwork>) map.get(key);
        }

        @SuppressWarnings("unchecked")
        List<HostPort> hostPorts(String key) {
            return (List<HostPort>) map.get(key);
        }
    }
}
