package io.kodiak.stub;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestTextTest {
    @Test
    void defaultsToUtf8() {
        assertEquals(StandardCharsets.UTF_8, RequestText.charsetOf(null));
    }

    @Test
    void unknownAndMalformedCharsetNamesFallBackToUtf8() {
        assertEquals(StandardCharsets.UTF_8, RequestText.charsetOf("x-no-such-charset"));
        assertEquals(StandardCharsets.UTF_8, RequestText.charsetOf("not a name!"));
    }

    @Test
    void honoursADeclaredCharset() {
        byte[] latin1 = {(byte) 0xE9};
        assertEquals("é", RequestText.decode(latin1, 1, "ISO-8859-1"));
    }

    @Test
    void invalidBytesBecomeReplacementCharacters() {
        byte[] bytes = {'a', (byte) 0xFF, 'b'};
        assertEquals("a\uFFFDb", RequestText.decode(bytes, bytes.length, "UTF-8"));
    }
}
