package io.kodiak.daemon;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reload re-reads a changed logback file at once, on a logger context of its own here. */
class LogConfigurationTest {

    private static String config(String level) {
        return "<configuration><logger name=\"kodiak.probe\" level=\"" + level + "\"/></configuration>";
    }

    @Test
    void aChangedFileIsReadAgainAndItsLevelsApply(@TempDir Path dir) throws Exception {
        File xml = dir.resolve("logback.xml").toFile();
        Files.writeString(xml.toPath(), config("OFF"));
        LoggerContext context = new LoggerContext();
        try {
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(xml);
            LogConfiguration logging = new LogConfiguration(xml, context);
            assertNull(logging.reloadIfChanged(), "unchanged: nothing to re-read");

            Files.writeString(xml.toPath(), config("DEBUG"));
            assertTrue(xml.setLastModified(xml.lastModified() + 2_000));
            String line = logging.reloadIfChanged();
            assertTrue(line.startsWith("logging configuration re-read"), line);
            assertEquals(Level.DEBUG, context.getLogger("kodiak.probe").getLevel());
        } finally {
            context.stop();
        }
    }
}
