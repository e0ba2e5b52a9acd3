package io.kodiak.config;

import java.util.Optional;

/** How a group's servers are spoken to, by configuration name (proxy.upstream.protocol, a group's and a route's protocol). */
public enum UpstreamProtocolName implements ConfigNamed {
    /** One request at a time per connection. */
    HTTP_1_1("http/1.1"),
    /** HTTP/2: many streams per connection; h2c with prior knowledge on http://, h2 by ALPN on https://. */
    H2("h2");

    private final String configName;

    UpstreamProtocolName(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    public static Optional<UpstreamProtocolName> parse(String value) {
        return ConfigNamed.parse(UpstreamProtocolName.class, value);
    }

    public static String allNames() {
        return ConfigNamed.allNames(UpstreamProtocolName.class, ", ");
    }
}
