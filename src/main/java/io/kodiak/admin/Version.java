package io.kodiak.admin;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Kodiak's version, from the Maven descriptor the jar plugin puts into the packaged jar. */
public final class Version {
    private static final String DESCRIPTOR = "/META-INF/maven/io.kodiak/kodiak/pom.properties";

    private Version() {
    }

    /** "unknown" when running from target/classes (tests, IDE), where there is no descriptor. */
    public static String current() {
        try (InputStream in = Version.class.getResourceAsStream(DESCRIPTOR)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
