package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.log.AccessLogFormat;

/**
 * The request headers an access-log format names ($http_NAME), read while the head is still in
 * the read buffer: the line is written when the exchange ends, long after those bytes are gone.
 */
final class LoggedHeaders {
    private LoggedHeaders() {
    }

    /** The values in the format's order (null for an absent header), or null when the format names none. */
    static String[] of(RequestHead head, AccessLogFormat format) {
        if (head == null || !format.logsHeaders()) {
            return null;
        }
        String[] names = format.requestHeaders();
        String[] values = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            values[i] = head.firstValue(names[i]);
        }
        return values;
    }
}
