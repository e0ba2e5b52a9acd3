package io.kodiak.http;

import org.glassfish.grizzly.http.util.BufferChunk;
import org.glassfish.grizzly.http.util.ByteChunk;
import org.glassfish.grizzly.http.util.DataChunk;

/** Byte access to a parsed {@link DataChunk} of any storage type, without making a String of it. */
final class Chunks {
    private Chunks() {
    }

    /** The octet at {@code index} (0-based within the chunk). */
    static int byteAt(DataChunk chunk, int index) {
        switch (chunk.getType()) {
            case Bytes: {
                ByteChunk bytes = chunk.getByteChunk();
                return bytes.getBuffer()[bytes.getStart() + index] & 0xff;
            }
            case Buffer: {
                BufferChunk buffer = chunk.getBufferChunk();
                return buffer.getBuffer().get(buffer.getStart() + index) & 0xff;
            }
            case Chars:
                return chunk.getCharChunk().getBuffer()[chunk.getCharChunk().getStart() + index] & 0xff;
            default:
                return chunk.toString().charAt(index) & 0xff;
        }
    }

    /** True when the chunk starts with {@code lowerCasePrefix}, ASCII case ignored. */
    static boolean startsWithIgnoreCase(DataChunk chunk, String lowerCasePrefix) {
        if (chunk.getLength() < lowerCasePrefix.length()) {
            return false;
        }
        for (int i = 0; i < lowerCasePrefix.length(); i++) {
            int b = byteAt(chunk, i);
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != lowerCasePrefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
