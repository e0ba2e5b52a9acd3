package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HeadWriterTest {
    private static String text(HeadWriter writer) {
        Buffer buffer = writer.toBuffer(MemoryManager.DEFAULT_MEMORY_MANAGER);
        return buffer.toStringContent(StandardCharsets.US_ASCII);
    }

    @Test
    void decimalsAreWrittenAsLongToStringWouldAndTheArrayGrows() {
        long[] values = {0, 7, 9, 10, 99, 100, 101, 200, 404, 999, 1000, 65_535, 1L << 31, 999_999_999_999_999_999L,
                1_000_000_000_000_000_000L, Long.MAX_VALUE};
        StringBuilder expected = new StringBuilder();
        HeadWriter writer = new HeadWriter(4);
        for (long value : values) {
            writer.decimal(value).bytes(new byte[] {','});
            expected.append(value).append(',');
        }
        assertEquals(expected.toString(), text(writer));
    }

    @Test
    void aNegativeNumberIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new HeadWriter(8).decimal(-1));
    }
}
