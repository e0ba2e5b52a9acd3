package io.kodiak.log;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.EncoderBase;

import java.nio.charset.StandardCharsets;

/**
 * The access log's encoder in conf/logback.xml: the line's time ({@link LineTime}; none before a
 * JSON line), its message and a newline, as the pattern {@code %accessTime%msg%n} writes them, in
 * one array of the line's size. A pattern layout builds each line in a new {@code StringBuilder},
 * makes a {@code String} of it and then its bytes: about 700 bytes of garbage per request where
 * this makes the one array the appender copies.
 */
public final class AccessLineEncoder extends EncoderBase<ILoggingEvent> {
    private static final byte[] NONE = new byte[0];

    @Override
    public byte[] headerBytes() {
        return null;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        byte[] time = LineTime.isJson(event) ? NONE : LineTime.bytes(event.getTimeStamp());
        String message = event.getFormattedMessage();
        int length = message.length();
        if (!ascii(message)) {
            // A JSON line's field may carry any character: UTF-8, as the pattern encoder's default.
            byte[] text = message.getBytes(StandardCharsets.UTF_8);
            byte[] line = new byte[time.length + text.length + 1];
            System.arraycopy(time, 0, line, 0, time.length);
            System.arraycopy(text, 0, line, time.length, text.length);
            line[line.length - 1] = '\n';
            return line;
        }
        byte[] line = new byte[time.length + length + 1];
        System.arraycopy(time, 0, line, 0, time.length);
        // ASCII: each char is its byte (getBytes(int, int, byte[], int) copies the low bytes).
        message.getBytes(0, length, line, time.length);
        line[line.length - 1] = '\n';
        return line;
    }

    private static boolean ascii(String message) {
        for (int i = 0; i < message.length(); i++) {
            if (message.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    @Override
    public byte[] footerBytes() {
        return null;
    }
}
