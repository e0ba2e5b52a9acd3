package io.kodiak.http;

import org.glassfish.grizzly.Buffer;

/**
 * The empty lines a client may send between two requests, skipped (RFC 9112 §2.2). One per
 * connection: a CR that ends one read is remembered until the next.
 */
public final class EmptyLines {
    /** The last read between two requests ended with the CR of an empty line: the LF that completes it may come with the next read. */
    private boolean crRead;

    /**
     * RFC 9112 §2.2: empty lines before a request line are ignored (some clients send a CRLF after
     * a POST body). Wherever the reads split them: a CR that ends a read is remembered, and a CR
     * followed by anything but LF is refused as the bare CR it is. Returns false when the read
     * held nothing else.
     */
    public boolean skip(Buffer buffer) {
        int position = buffer.position();
        int limit = buffer.limit();
        if (crRead) {
            if (buffer.get(position) != '\n') {
                throw new HttpViolationException(Violation.BARE_CR);
            }
            crRead = false;
            position++;
        }
        while (position < limit) {
            byte b = buffer.get(position);
            if (b == '\n') {
                position++;
            } else if (b == '\r' && position + 1 == limit) {
                crRead = true;
                position++;
            } else if (b == '\r' && buffer.get(position + 1) == '\n') {
                position += 2;
            } else {
                break;
            }
        }
        buffer.position(position);
        return position < limit;
    }
}
