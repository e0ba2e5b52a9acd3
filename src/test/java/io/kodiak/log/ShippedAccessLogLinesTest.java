package io.kodiak.log;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** conf/logback.xml as shipped: a text access line gets the time before it, a JSON line stays one JSON object. */
class ShippedAccessLogLinesTest {

    @Test
    void aJsonLineIsTheObjectAloneAndATextLineHasItsTime(@TempDir Path dir) throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        context.putProperty("PROXY_LOG_DIR", dir.toString());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(Path.of(System.getProperty("basedir", "."), "conf", "logback.xml").toFile());
        org.slf4j.Logger access = context.getLogger("kodiak.access");
        access.info(AccessLog.JSON, "{\"status\":200}");
        access.info("127.0.0.1 \"GET /\" 200");
        context.stop();

        List<String> lines = Files.readAllLines(dir.resolve("access.log"));
        assertEquals(2, lines.size(), lines.toString());
        assertEquals("{\"status\":200}", lines.get(0));
        assertTrue(lines.get(1).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} 127\\.0\\.0\\.1 \"GET /\" 200"), lines.get(1));
    }
}
