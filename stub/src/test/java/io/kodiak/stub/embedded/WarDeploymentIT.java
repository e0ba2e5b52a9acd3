package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.Globals;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.Test;

/**
 * The packaged ProxiedServiceStub.war, deployed the way a stock Tomcat deploys a WAR file, serves the
 * original URL. An IT so it runs after package, against the WAR itself: its web.xml and layout. (A class
 * missing from the WAR would still load from the test's class path, the webapp loader's parent.)
 */
class WarDeploymentIT {
    @Test
    void webXmlMapsTheServletAtTheOriginalPath() throws Exception {
        Path war = Path.of("target", "ProxiedServiceStub.war").toAbsolutePath();
        assertTrue(Files.isRegularFile(war), "package builds " + war);
        Path base = Files.createTempDirectory("kodiak-stub-war-test");
        // Tomcat expands a WAR file into the host's appBase, which must exist.
        Files.createDirectories(base.resolve("webapps"));
        System.setProperty(Globals.CATALINA_HOME_PROP, base.toString());
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        // Without the default web.xml Tomcat would want Jasper for JSPs, which a stock Tomcat has and we do not.
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Context context = tomcat.addWebapp(StubServer.CONTEXT_PATH, war.toString());
        StandardJarScanner scanner = new StandardJarScanner();
        scanner.setScanClassPath(false);
        context.setJarScanner(scanner);
        tomcat.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + StubServer.PATH);
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                            .POST(HttpRequest.BodyPublishers.ofString("test1")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertAnswers("test1", response.body());
        } finally {
            tomcat.stop();
            tomcat.destroy();
            try (Stream<Path> paths = Files.walk(base)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
