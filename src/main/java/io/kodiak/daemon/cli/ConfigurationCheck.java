package io.kodiak.daemon.cli;

import com.typesafe.config.ConfigFactory;
import io.kodiak.config.ConfigException;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.ProxyConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The configuration as the daemon will read it: the same file, the same -Dproxy.* overrides from
 * JAVA_OPTS, relative paths resolved in PROXY_BASE (this JVM's working directory, as the
 * daemon's). Exit 2 with every problem named when it is invalid, before anything starts.
 */
final class ConfigurationCheck {
    private ConfigurationCheck() {
    }

    static ProxyConfig load(Path conf, List<String> javaOpts) throws CommandFailed {
        if (!Files.isRegularFile(conf) || !Files.isReadable(conf)) {
            throw new CommandFailed(2, "kodiak: configuration file " + conf + " does not exist or is not readable");
        }
        // Only the configuration's overrides: the daemon's other options (heap, logging) are not this JVM's.
        for (String word : javaOpts) {
            if (word.startsWith("-Dproxy.")) {
                int eq = word.indexOf('=');
                System.setProperty(eq < 0 ? word.substring(2) : word.substring(2, eq), eq < 0 ? "" : word.substring(eq + 1));
            }
        }
        ConfigFactory.invalidateCaches();
        try {
            return ConfigLoader.load(conf.toFile());
        } catch (ConfigException e) {
            throw new CommandFailed(2, "kodiak: " + conf + ": " + e.getMessage());
        }
    }

    /** Port 0 (any free port) is for tests: a daemon must be found where its configuration says. */
    static void requireFixedPorts(ProxyConfig config) throws CommandFailed {
        if (config.listener().port() == 0) {
            throw new CommandFailed(2, "kodiak: proxy.listener.port = 0 (any free port) is for tests; the daemon needs a fixed port");
        }
        if (config.moreListeners().stream().anyMatch(endpoint -> endpoint.port() == 0)) {
            throw new CommandFailed(2, "kodiak: a port 0 (any free port) in proxy.listeners is for tests; the daemon needs fixed ports");
        }
        if (config.admin().enabled() && config.admin().port() == 0) {
            throw new CommandFailed(2, "kodiak: proxy.admin.port = 0 (any free port) is for tests; the daemon needs a fixed port");
        }
    }
}
