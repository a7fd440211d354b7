package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.LogCapture;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.LoggingConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.slf4j.LoggerFactory;

/** The command line's Logback set-up: level and format keys, stderr only, Micrometer's known repeat dropped. */
class LoggingTest {

    @AfterEach
    void restoreTestLogging() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    /** What {@code log} writes to stderr (and stdout) while Logging is configured with {@code config}. */
    private static String[] logged(LoggingConfig config, Runnable log) {
        PrintStream err = System.err;
        PrintStream out = System.out;
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
            System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
            Logging.configure(config);
            log.run();
        } finally {
            System.setErr(err);
            System.setOut(out);
        }
        return new String[] {errBytes.toString(StandardCharsets.UTF_8), outBytes.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void textLinesOnStderrAtTheConfiguredLevel() {
        String[] written = logged(new LoggingConfig("warn", "text"), () -> {
            LoggerFactory.getLogger("org.seaweedfs.rdma.test").info("quiet {}", 1);
            LoggerFactory.getLogger("org.seaweedfs.rdma.test").warn("loud {}", 2);
        });
        assertTrue(written[0].matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\[[^]]+\\] "
                + "org.seaweedfs.rdma.test: loud 2\\n"), written[0]);
        assertEquals("", written[1], "stdout is the program's");
    }

    @Test
    void jsonLinesForALogPipeline() {
        String[] written = logged(new LoggingConfig("info", "json"), () -> {
            LoggerFactory.getLogger("org.seaweedfs.rdma.test").info("hello \"{}\"", "world");
            LoggerFactory.getLogger("org.seaweedfs.rdma.test").error("failed", new IllegalStateException("boom"));
        });
        List<String> lines = written[0].lines().toList();
        assertEquals(2, lines.size(), written[0]);
        JsonObject first = new JsonObject(lines.get(0));
        assertEquals("INFO", first.getString("level"));
        assertEquals("org.seaweedfs.rdma.test", first.getString("loggerName"));
        assertEquals("hello \"world\"", first.getString("formattedMessage"));
        assertTrue(first.getLong("timestamp") > 0);
        JsonObject second = new JsonObject(lines.get(1));
        assertEquals("boom", second.getJsonObject("throwable").getString("message"));
        assertEquals("", written[1]);
    }

    @Test
    void micrometersVertxGaugeRepeatIsDroppedButOursIsWarned() throws Exception {
        Logging.configure(LoggingConfig.defaults());
        RdmaMetrics metrics = RdmaMetrics.create();
        Vertx vertx = metrics.newVertx(new VertxOptions());
        try (LogCapture capture = LogCapture.of("io.micrometer", "DEBUG")) {
            // a second Vert.x on the same registry registers its pools' gauges (vertx.pool.*) again in vertx-micrometer
            metrics.newVertx(new VertxOptions()).close().await(10, TimeUnit.SECONDS);
            assertTrue(capture.messages().stream().noneMatch(m -> m.contains("name='vertx.")),
                    capture.messages().toString());
            Gauge.builder("seaweedfs.test.gauge", () -> 1).register(metrics.registry());
            Gauge.builder("seaweedfs.test.gauge", () -> 2).register(metrics.registry());
            assertTrue(capture.messages().stream().anyMatch(m -> m.contains("already registered")
                    && m.contains("seaweedfs.test.gauge")), "a repeat of our own gauge is still reported: "
                            + capture.messages());
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void keysAreValidatedAndEnvironmentOverridable() {
        assertEquals(LoggingConfig.defaults(), ConfigLoader.fromEnvironment(Map.of()).logging());
        assertEquals(new LoggingConfig("debug", "json"), ConfigLoader.parse("logging: {level: DEBUG}", "t.yaml",
                Map.of("SEAWEEDFS_RDMA_LOGGING_FORMAT", "json")).logging());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.parse("logging: {format: xml, level: loud}", "t.yaml", Map.of()));
        assertTrue(e.problems().contains("logging.format: 'xml' is not one of text, json"), e.problems().toString());
        assertTrue(e.problems().contains("logging.level: 'loud' is not one of trace, debug, info, warn, error, off"),
                e.problems().toString());
    }
}
