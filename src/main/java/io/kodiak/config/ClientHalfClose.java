package io.kodiak.config;

import java.util.Optional;

/**
 * {@code proxy.listener.client-half-close}: what becomes of a request being served when its
 * client's input ends. Over TCP a client that shut down only its sending side and one that left
 * look the same until something is written to them, so a proxy has to pick one reading.
 */
public enum ClientHalfClose implements ConfigNamed {
    /** The client left: its exchange ends at once and the upstream connection is freed (nginx's default). */
    ABORT("abort"),
    /** The client only stopped sending: what it sent whole is answered, then the connection closes (HAProxy's default). */
    ANSWER("answer");

    private final String configName;

    ClientHalfClose(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    public static Optional<ClientHalfClose> parse(String value) {
        return ConfigNamed.parse(ClientHalfClose.class, value);
    }

    public static String allNames() {
        return ConfigNamed.allNames(ClientHalfClose.class, ", ");
    }
}
