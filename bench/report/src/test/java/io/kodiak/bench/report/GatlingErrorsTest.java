package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failure reasons counted from simulation.log records, in Gatling 3.12's layout (as in bench/gatling/testdata/ko). */
class GatlingErrorsTest {

    @TempDir
    Path dir;

    @Test
    void countsTheFailedRequestsByMessageAndNamesTheMostFrequent() throws IOException {
        Path log = log("""
                RUN\tio.kodiak.bench.KodiakSimulation\tkodiaksimulation\t1795538538000\t \t3.12.0
                USER\toriginal\tSTART\t1795538538100
                REQUEST\t\tPOST body\t1795538538114\t1795538538167\tKO\tj.n.ConnectException: Connection refused
                REQUEST\t\tPOST body\t1795538538114\t1795538549167\tKO\tRequest timeout to 127.0.0.1/127.0.0.1:9401 after 10000 ms
                REQUEST\t\tPOST body\t1795538538114\t1795538538600\tOK\t\s
                REQUEST\t\tPOST body\t1795538538114\t1795538538167\tKO\tj.n.ConnectException: Connection refused
                USER\toriginal\tEND\t1795538549200
                """);
        assertEquals(Map.of("j.n.ConnectException: Connection refused", 2L,
                "Request timeout to 127.0.0.1/127.0.0.1:9401 after 10000 ms", 1L), GatlingErrors.of(log));
        assertEquals(Optional.of("j.n.ConnectException: Connection refused (2×) and 1 other kind(s) of failure"),
                GatlingErrors.summary(log));
    }

    @Test
    void aTieGoesToTheFirstMessageAlphabeticallySoReportsDoNotFlicker() throws IOException {
        Path log = log("""
                REQUEST\t\tPOST body\t1\t2\tKO\tstatus.find.is(200), but actually found 502
                REQUEST\t\tPOST body\t1\t2\tKO\tj.n.ConnectException: Connection refused
                """);
        assertEquals(Optional.of("j.n.ConnectException: Connection refused (1×) and 1 other kind(s) of failure"),
                GatlingErrors.summary(log));
    }

    @Test
    void aRunWithoutFailuresHasNoReason() throws IOException {
        Path log = log("REQUEST\t\tPOST body\t1\t2\tOK\t \n");
        assertEquals(Map.of(), GatlingErrors.of(log));
        assertEquals(Optional.empty(), GatlingErrors.summary(log));
    }

    @Test
    void theRealFixtureHasOneReason() throws IOException {
        assertEquals(Map.of("j.n.ConnectException: finishConnect(..) failed: Connection refused", 69L),
                GatlingErrors.of(Path.of("../gatling/testdata/ko/kodiaksimulation-20261124164217661/simulation.log")));
    }

    private Path log(String text) throws IOException {
        return Files.writeString(dir.resolve("simulation.log"), text);
    }
}
