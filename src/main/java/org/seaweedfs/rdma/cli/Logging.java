package org.seaweedfs.rdma.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.FilterReply;
import org.seaweedfs.rdma.config.LoggingConfig;
import org.seaweedfs.rdma.metrics.VertxGaugeRegistrationFilter;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * The command line's log backend, configured in code (no logback.xml in the jar, so an application that depends
 * on the library keeps its own configuration): Logback, one appender on stderr, text lines or JSON lines, root
 * level from {@code logging.level}. Vert.x is told to log through SLF4J, as Netty and Micrometer do on their own.
 * An operator's {@code -Dlogback.configurationFile=...} wins: then nothing here is applied.
 */
final class Logging {

    static final String TEXT_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36}: %msg%n";
    private static final String VERTX_LOGGER_PROPERTY = "vertx.logger-delegate-factory-class-name";

    private Logging() {
    }

    /** Applies {@code config}; does nothing when SLF4J is not bound to Logback or the operator named a file. */
    static void configure(LoggingConfig config) {
        if (System.getProperty(VERTX_LOGGER_PROPERTY) == null) {
            System.setProperty(VERTX_LOGGER_PROPERTY, "io.vertx.core.logging.SLF4JLogDelegateFactory");
        }
        if (System.getProperty("logback.configurationFile") != null
                || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        context.reset();
        apply(context, config);
    }

    /** One appender on stderr at {@code config}'s level and format (on a context without appenders). */
    static void apply(LoggerContext context, LoggingConfig config) {
        context.addTurboFilter(new VertxGaugeRepeats());
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder(config.format(), context));
        stderr.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(config.level(), Level.INFO));
        root.addAppender(stderr);
    }

    private static Encoder<ILoggingEvent> encoder(String format, LoggerContext context) {
        if (format.equals("json")) {
            JsonEncoder json = new JsonEncoder();
            json.setContext(context);
            json.setWithSequenceNumber(false);
            json.setWithNanoseconds(false);
            json.setWithContext(false);
            json.setWithArguments(false);
            json.setWithMessage(false);
            json.setWithFormattedMessage(true);
            json.start();
            return json;
        }
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        text.setContext(context);
        text.setPattern(TEXT_PATTERN);
        text.start();
        return text;
    }

    /**
     * Drops Micrometer's known, harmless repeat warning (then debug record) about vertx-micrometer's gauges (see the
     * JUL twin).
     */
    static final class VertxGaugeRepeats extends TurboFilter {
        @Override
        public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
                Throwable t) {
            if (format == null || !logger.getName().startsWith("io.micrometer")) {
                return FilterReply.NEUTRAL;
            }
            String message = MessageFormatter.basicArrayFormat(format, params);
            return VertxGaugeRegistrationFilter.isVertxGaugeRepeat(message) ? FilterReply.DENY : FilterReply.NEUTRAL;
        }
    }
}
