package org.seaweedfs.rdma.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.util.DefaultJoranConfigurator;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.seaweedfs.rdma.config.LoggingConfig;

/**
 * Logback's configuration when the application that has this jar on its class path brings none: INFO and above,
 * on stderr, instead of Logback's own default (DEBUG on stdout: every breaker call, thousands of lines a second).
 * Found by Logback through {@code META-INF/services} and ranked last, so an application's own configurator goes
 * first; its {@code logback.xml}, {@code logback-test.xml} or {@code -Dlogback.configurationFile} is looked up with
 * Logback's own search and, when there is one, used as it is.
 *
 * <p>Why this and not a second, Logback-free jar: the plain library jar already is one (Logback is an optional
 * dependency, never inherited); what reaches applications with Logback is the shaded jar, which must carry it for
 * the command line. A default that yields to any configuration fixes that jar without a second build to keep.
 */
@ConfiguratorRank(ConfiguratorRank.FALLBACK)
public final class DefaultLogging extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        DefaultJoranConfigurator applications = new DefaultJoranConfigurator();
        applications.setContext(context);
        if (applications.configure(context) == ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY) {
            return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
        }
        Logging.apply(context, LoggingConfig.defaults());
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
