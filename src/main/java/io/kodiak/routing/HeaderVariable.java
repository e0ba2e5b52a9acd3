package io.kodiak.routing;

import java.util.Arrays;
import java.util.List;

/** The variables a header rule's value may use, written {@code ${name}}. */
public enum HeaderVariable {
    /** A unique id per exchange (32 hex digits), the same as the access log's and the one in Kodiak's 5xx answers. */
    REQUEST_ID("request_id"),
    /** The client's IP address. */
    CLIENT_ADDR("client_addr"),
    /** The request's host name (lower case, no port); empty when the request named none. */
    HOST("host"),
    /** http or https: how the client reached Kodiak. */
    SCHEME("scheme");

    public final String configName;

    HeaderVariable(String configName) {
        this.configName = configName;
    }

    static HeaderVariable named(String name) {
        for (HeaderVariable variable : values()) {
            if (variable.configName.equals(name)) {
                return variable;
            }
        }
        return null;
    }

    public static List<String> names() {
        return Arrays.stream(values()).map(v -> "${" + v.configName + "}").toList();
    }

    /** The values of one exchange; each is asked for only when a rule uses it. */
    public interface Values {
        String of(HeaderVariable variable);
    }
}
