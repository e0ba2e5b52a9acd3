package io.kodiak.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reload request and answer files bin/proxy.sh and the daemon exchange. */
class ControlFilesTest {
    @TempDir
    Path dir;

    private ControlFiles files() {
        return ControlFiles.besidePidFile(dir.resolve("proxy.pid").toString());
    }

    @Test
    void aRequestIsTakenOnceWithItsIdAndFile() throws Exception {
        Files.writeString(dir.resolve("proxy.reload"), "123-456\n/etc/kodiak/other.conf\n");
        ControlFiles files = files();

        ControlFiles.Request request = files.take();
        assertEquals("123-456", request.id());
        assertEquals(new File("/etc/kodiak/other.conf"), request.file());
        assertNull(request.problem());
        assertFalse(Files.exists(dir.resolve("proxy.reload")), "taken");
        assertSame(ControlFiles.Request.SIGNAL, files.take(), "a second signal finds no request: the file in service");
    }

    @Test
    void anIdThatCannotNameAFileIsDropped() throws Exception {
        Files.writeString(dir.resolve("proxy.reload"), "../../etc/x\n\n");
        ControlFiles.Request request = files().take();
        assertNull(request.id());
        assertNull(request.file(), "an empty second line: the file in service");
    }

    @Test
    void theAnswerGoesToTheRequestersFileAndToTheLatestReadableByOthers() throws Exception {
        Files.writeString(dir.resolve("proxy.reload"), "77-1\n\n");
        ControlFiles files = files();
        ControlFiles.Request request = files.take();
        files.answer(request, new Reloader.Outcome(Reloader.Result.REFUSED, 3, new File("/x/proxy.conf"),
                List.of("proxy.listener.port = \"x\": expected a port")));

        Path own = dir.resolve("proxy.reload-result.77-1");
        String expected = "id=77-1\nresult=refused\ngeneration=3\nconfig_file=/x/proxy.conf\n"
                + "line=proxy.listener.port = \"x\": expected a port\n";
        assertEquals(expected, Files.readString(own));
        assertEquals(expected, Files.readString(dir.resolve("proxy.reload-result")));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)));
    }

    @Test
    void aBareSignalIsAnsweredInTheLatestFileOnly() throws Exception {
        ControlFiles files = files();
        files.answer(files.take(), new Reloader.Outcome(Reloader.Result.APPLIED, 2, new File("/x/proxy.conf"), List.of()));
        assertTrue(Files.readString(dir.resolve("proxy.reload-result")).startsWith("id=signal\nresult=applied\ngeneration=2\n"));
        try (var listing = Files.list(dir)) {
            assertEquals(List.of("proxy.reload-result"), listing.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void aRequestThatCannotBeReadIsAProblemNotASignal() throws Exception {
        Path request = dir.resolve("proxy.reload");
        // A directory where the request should be: it cannot be taken as a file.
        Files.createDirectories(request.resolve("inside"));
        ControlFiles.Request taken = files().take();
        assertNotNull(taken.problem(), "refused, saying why, rather than reloading the file in service");
    }
}
