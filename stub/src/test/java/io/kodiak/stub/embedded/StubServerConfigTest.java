package io.kodiak.stub.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kodiak.stub.DelayMode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StubServerConfigTest {
    @Test
    void defaultsMatchTheBrief() {
        StubServerConfig config = StubServerConfig.fromEnvironment(Map.of());
        assertEquals("127.0.0.1", config.host());
        assertEquals(8080, config.port());
        assertEquals(500, config.settings().delayMs());
        assertEquals(DelayMode.ASYNC, config.settings().mode());
        assertEquals(StubServerConfig.DEFAULT_ASYNC_THREADS, config.threads());
    }

    @Test
    void blockingModeDefaultsToTomcatsThreadCount() {
        StubServerConfig config = StubServerConfig.fromEnvironment(Map.of("STUB_MODE", "blocking"));
        assertEquals(DelayMode.BLOCKING, config.settings().mode());
        assertEquals(200, config.threads());
    }

    @Test
    void readsEveryVariable() {
        StubServerConfig config = StubServerConfig.fromEnvironment(Map.of("STUB_HOST", "::1", "STUB_PORT", "9999",
                "STUB_DELAY_MS", "0", "STUB_MODE", "blocking", "STUB_THREADS", "16"));
        assertEquals(new StubServerConfig("::1", 9999, 16,
                new io.kodiak.stub.StubSettings(0, DelayMode.BLOCKING)), config);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "STUB_PORT     | abc      | an integer from 1 to 65535",
        "STUB_PORT     | 0        | an integer from 1 to 65535",
        "STUB_PORT     | 65536    | an integer from 1 to 65535",
        "STUB_PORT     | -1       | an integer from 1 to 65535",
        "STUB_DELAY_MS | -5       | an integer from 0 upwards",
        "STUB_DELAY_MS | 1.5      | an integer from 0 upwards",
        "STUB_DELAY_MS | 99999999999 | an integer from 0 upwards",
        "STUB_MODE     | sync     | one of async, blocking",
        "STUB_THREADS  | 0        | an integer from 1 to 10000",
    })
    void badValuesAreNamedWithWhatWasExpected(String variable, String value, String expected) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> StubServerConfig.fromEnvironment(Map.of(variable, value)));
        assertEquals(variable + "='" + value + "' is not valid: expected " + expected, error.getMessage());
    }
}
