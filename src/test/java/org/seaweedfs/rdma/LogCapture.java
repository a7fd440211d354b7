package org.seaweedfs.rdma;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/** Records what one logger (and those below it) logs at or above a level, until closed. */
public final class LogCapture extends AppenderBase<ILoggingEvent> implements AutoCloseable {

    private final Logger logger;
    private final Level minimum;
    private final Level previousLevel;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    private LogCapture(String loggerName, Level minimum) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerName);
        this.minimum = minimum;
        this.previousLevel = logger.getLevel();
        if (!logger.isEnabledFor(minimum)) {
            logger.setLevel(minimum);
        }
        setContext(logger.getLoggerContext());
        start();
        logger.addAppender(this);
    }

    /** Captures {@code loggerName}'s records at {@code minimum} or above (e.g. "WARN"). */
    public static LogCapture of(String loggerName, String minimum) {
        return new LogCapture(loggerName, Level.toLevel(minimum));
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(minimum)) {
            messages.add(event.getFormattedMessage());
        }
    }

    /** The formatted messages so far. */
    public List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void close() {
        logger.detachAppender(this);
        logger.setLevel(previousLevel);
        stop();
    }
}
